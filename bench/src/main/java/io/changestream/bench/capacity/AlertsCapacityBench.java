package io.changestream.bench.capacity;

import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.bench.alerts.AlertBenchSupport;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Capacity of one alert service: {@code changes} is pre-filled with EVENTS events over 10,000 entities (before the
 * measured service starts), ten webhook subscriptions match every event, and a local receiver answers each request
 * after 5 ms (without holding a thread). Measured: deliveries/s from the first to the last delivery, lost and
 * duplicate pairs. The limit, in the same run before it: a bare loop on Jetty's asynchronous HTTP client (what the
 * service uses) posting the same requests to the same receiver with the same concurrency (ten destinations ×
 * {@code delivery.maxConcurrentPerDestination}). Everything in this JVM (broker, service, receiver); the last line
 * printed is {@code RESULT {...}}.
 *
 * <p>Both contenders are reported twice: over the whole run, and in steady state — from the moment the first
 * {@code --warmup} fraction of their requests is done to the last one. On two cores the JIT compiler alone takes
 * half a core to a core for the first tens of seconds of each phase (16,000 compilations, ~90 CPU-seconds in a
 * 20,000-event run), so the whole-run figure of a short run measures warm-up as much as capacity; the ratio and the
 * RESULT's {@code deliveries_per_sec}/{@code limit_per_sec} are the steady-state ones, the {@code *_whole} fields
 * the whole run. Beside the rates, the CPU the whole JVM (receiver and broker included) used per request in steady
 * state ({@code cpu_us_per_delivery}, {@code limit_cpu_us_per_request}): on two shared cores it moves much less from
 * run to run than the rates do.
 *
 * <p>Arguments: {@code --events N} (default 100,000), {@code --subscriptions N} (default 10), {@code --warmup F}
 * (default 0.3).
 */
public final class AlertsCapacityBench {

    private static final int ENTITIES = 10_000;
    private static final int PER_DESTINATION = 32;
    private static final long ANSWER_AFTER_MILLIS = 5;

    private AlertsCapacityBench() {
    }

    public static void main(String[] args) throws Exception {
        int events = intArg(args, "--events", 100_000);
        int subscriptions = intArg(args, "--subscriptions", 10);
        long pairs = (long) events * subscriptions;
        int concurrency = subscriptions * PER_DESTINATION;
        double warmupFraction = Double.parseDouble(stringArg(args, "--warmup", "0.3"));
        if (!(warmupFraction >= 0 && warmupFraction < 1)) {
            throw new IllegalArgumentException("--warmup must be in [0, 1): " + warmupFraction);
        }
        long warmupPairs = (long) (pairs * warmupFraction);
        String ns = "bench-capacity.";
        String report;
        try (KafkaBroker broker = Brokers.start(Map.of()); SlowReceiver receiver = new SlowReceiver()) {
            TopicCatalog catalog = AlertBenchSupport.provision(broker, ns);
            Map<String, String> settings = settings(broker, ns, concurrency);
            // the subscriptions first (stored on their topic), by an instance that then stops
            try (AlertService setup = AlertService.start(AlertServiceConfig.from(settings, Map.of()))) {
                for (int i = 0; i < subscriptions; i++) {
                    AlertBenchSupport.subscribe(setup.httpPort(), "cap-" + i, receiver.url("/s" + i), null);
                }
            }
            List<byte[]> bodies = prefill(broker, catalog.changes().name(), events);

            // the limit: a bare asynchronous client loop, same receiver, same requests, same concurrency
            Rates limit = bareLoop(receiver, bodies, subscriptions, concurrency, pairs, warmupPairs);
            receiver.reset(warmupPairs);

            // the service over the pre-filled topic
            long started = System.nanoTime();
            long doneCpu = -1;
            long shed;
            try (AlertService service = AlertService.start(AlertServiceConfig.from(settings, Map.of()))) {
                long until = System.currentTimeMillis() + Math.max(120_000, pairs / 5);
                long seen = -1;
                long quietSince = System.currentTimeMillis();
                long traceAt = System.currentTimeMillis() + TRACE_EVERY_MILLIS;
                while (receiver.distinct() < pairs && System.currentTimeMillis() < until) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                    long now = receiver.distinct();
                    if (System.currentTimeMillis() >= traceAt) {
                        traceAt += TRACE_EVERY_MILLIS;
                        trace(service.meters(), now);
                    }
                    if (now >= pairs) {
                        doneCpu = processCpuNanos(); // within 100 ms of the last pair
                    }
                    if (now != seen) {
                        seen = now;
                        quietSince = System.currentTimeMillis();
                    } else if (System.currentTimeMillis() - quietSince > 30_000) {
                        break; // nothing for 30 s: report what arrived
                    }
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // late duplicates, if any
                shed = (long) service.meters().find("changestream.alert.deliveries.shed").functionCounters().stream()
                        .mapToDouble(io.micrometer.core.instrument.FunctionCounter::count).sum();
                System.err.printf(Locale.ROOT, "service: %d pairs in %.1f s since start; %d shed to the retry path "
                        + "by the destinations' bulkheads%n", receiver.distinct(), (System.nanoTime() - started) / 1e9,
                        shed);
            }
            long delivered = receiver.distinct();
            long duplicates = receiver.hits() - delivered;
            double wholeSeconds = Math.max(1, receiver.lastMillis() - receiver.firstMillis()) / 1000.0;
            double steadySeconds = Math.max(1, receiver.lastMillis() - receiver.warmMillis()) / 1000.0;
            long steadyPairs = Math.max(0, delivered - warmupPairs);
            double serviceCpu = doneCpu < 0 || steadyPairs == 0 ? Double.NaN
                    : (doneCpu - receiver.warmCpuNanos()) / 1e3 / steadyPairs;
            Rates service = new Rates(delivered / wholeSeconds, steadyPairs / steadySeconds, serviceCpu);
            String warm = String.format(Locale.ROOT, "steady (after %.0f%%)", warmupFraction * 100);
            report = String.format(Locale.ROOT, "%-44s %14s %20s %8s %8s%n", "alerts-capacity (" + events + " events x "
                            + subscriptions + " subscriptions, receiver 5 ms)", "whole run /s", warm + " /s", "lost",
                    "dupes")
                    + String.format(Locale.ROOT, "%-44s %14.0f %20.0f %8d %8d%n", "alert service (one instance)",
                    service.whole(), service.steady(), pairs - delivered, duplicates)
                    + String.format(Locale.ROOT, "%-44s %14.0f %20.0f %8s %8s%n", "bare async HTTP loop, "
                    + concurrency + " in flight (limit)", limit.whole(), limit.steady(), "-", "-")
                    + String.format(Locale.ROOT, "%-44s %14.2f %20.2f%n", "ratio", service.whole() / limit.whole(),
                    service.steady() / limit.steady())
                    + String.format(Locale.ROOT, "%-44s %14s %20s%n", "JVM CPU per request, steady (us)", "",
                    String.format(Locale.ROOT, "%.0f vs %.0f", service.cpuMicros(), limit.cpuMicros()))
                    + String.format(Locale.ROOT, "RESULT {\"scenario\":\"alerts-capacity\",\"events\":%d,"
                            + "\"subscriptions\":%d,\"warmup\":%.2f,\"deliveries_per_sec\":%.0f,"
                            + "\"limit_per_sec\":%.0f,\"ratio\":%.2f,\"deliveries_per_sec_whole\":%.0f,"
                            + "\"limit_per_sec_whole\":%.0f,\"ratio_whole\":%.2f,\"cpu_us_per_delivery\":%s,"
                            + "\"limit_cpu_us_per_request\":%.0f,\"lost\":%d,\"duplicates\":%d,\"shed\":%d}%n",
                    events, subscriptions, warmupFraction, service.steady(), limit.steady(),
                    service.steady() / limit.steady(), service.whole(), limit.whole(),
                    service.whole() / limit.whole(), jsonMicros(service.cpuMicros()), limit.cpuMicros(),
                    pairs - delivered, duplicates, shed);
        }
        System.out.print(report); // after every component stopped: RESULT stays the last line
        System.out.flush();
        System.exit(0);
    }

    /**
     * Every 10 s on stderr: pairs so far and the service's gauges of what holds events back (pauses by reason, the
     * delay queue, calls running, buffers, lanes, queued and in-flight deliveries, throttles, hand-offs), so a run
     * below the limit shows which bound it waits on.
     */
    private static void trace(MeterRegistry meters, long pairsSoFar) {
        Map<String, Double> sums = new TreeMap<>();
        for (Meter m : meters.getMeters()) {
            String name = m.getId().getName();
            if (!TRACED.contains(name)) {
                continue;
            }
            String reason = m.getId().getTag("reason");
            String key = reason == null ? name : name + "{" + reason + "}";
            for (Measurement v : m.measure()) {
                if (v.getStatistic() == Statistic.VALUE
                        || v.getStatistic() == Statistic.COUNT) {
                    sums.merge(key, v.getValue(), name.endsWith("deepest") || name.endsWith("ratio")
                            ? Math::max : Double::sum);
                }
            }
        }
        StringBuilder line = new StringBuilder("trace: pairs=").append(pairsSoFar);
        sums.forEach((k, v) -> line.append(' ').append(k.replace("changestream.", "")).append('=')
                .append(String.format(Locale.ROOT, "%.0f", v)));
        System.err.println(line);
    }

    private static final long TRACE_EVERY_MILLIS = 10_000;
    private static final Set<String> TRACED = Set.of("changestream.runtime.paused.partitions",
            "changestream.runtime.delay.queue.size", "changestream.runtime.calls.running",
            "changestream.runtime.buffered.bytes", "changestream.runtime.lane.queue.deepest",
            "changestream.runtime.records.polled", "changestream.runtime.retries",
            "changestream.alert.deliveries.queued", "changestream.alert.deliveries.in.flight",
            "changestream.alert.throttled", "changestream.alert.retry.handoffs", "changestream.alert.deliveries.shed",
            "changestream.runtime.commits", "changestream.alert.ledger.writes");

    /**
     * One contender: requests/s over its whole run and from the end of its warm-up to its last request, and the JVM's
     * CPU per request (microseconds) over the latter.
     */
    private record Rates(double whole, double steady, double cpuMicros) {
    }

    /** Microseconds for the RESULT line: {@code null} when not measured (the run did not finish). */
    private static String jsonMicros(double micros) {
        return Double.isNaN(micros) ? "null" : String.format(Locale.ROOT, "%.0f", micros);
    }

    /** CPU time of this JVM, every thread. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static int intArg(String[] args, String name, int fallback) {
        return Integer.parseInt(stringArg(args, name, Integer.toString(fallback)));
    }

    private static String stringArg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static Map<String, String> settings(KafkaBroker broker, String ns, int concurrency) {
        Map<String, String> s = AlertBenchSupport.settings(broker, ns, "bench-capacity-alerts");
        s.put("delivery.maxConcurrentPerDestination", Integer.toString(PER_DESTINATION));
        // ten destinations on one receiver: one connection per request in flight (HTTP/1.1)
        s.put("delivery.maxConnectionsPerHost", Integer.toString(concurrency));
        return s;
    }

    /** Produces the events (keyed by entity id) and waits for every ack; returns their JSON bodies. */
    private static List<byte[]> prefill(KafkaBroker broker, String topic, int events) {
        List<byte[]> bodies = new ArrayList<>(events);
        long started = System.nanoTime();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                broker.bootstrapServers(), "linger.ms", 20, "batch.size", 262_144, "acks", "all"),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < events; i++) {
                String entity = UUID.nameUUIDFromBytes(("entity-" + (i % ENTITIES)).getBytes()).toString();
                ChangeEvent e = new ChangeEvent(UUID.randomUUID().toString(), ChangeEvent.ENTITY_UPDATED, "table",
                        entity, null, "svc.db.schema.t" + (i % ENTITIES), 0.1, 0.2, "bench", null,
                        System.currentTimeMillis(), null, null, null);
                String json = Serdes.changeEvent().toJson(e);
                bodies.add(json.getBytes(StandardCharsets.UTF_8));
                producer.send(new ProducerRecord<>(topic, entity, json));
            }
            producer.flush();
        }
        System.err.printf(Locale.ROOT, "pre-filled %d events in %.1f s%n", events,
                (System.nanoTime() - started) / 1e9);
        return bodies;
    }

    /**
     * The limit: every (event, subscription) request posted with {@code concurrency} in flight; requests/s over the
     * whole loop and after the first {@code warmupPairs} answers.
     */
    private static Rates bareLoop(SlowReceiver receiver, List<byte[]> bodies, int subscriptions, int concurrency,
                                  long pairs, long warmupPairs) throws Exception {
        org.eclipse.jetty.client.HttpClient client = new org.eclipse.jetty.client.HttpClient();
        QueuedThreadPool threads = new QueuedThreadPool(32, 2);
        threads.setDaemon(true);
        client.setExecutor(threads);
        client.setMaxConnectionsPerDestination(concurrency);
        client.setMaxRequestsQueuedPerDestination(concurrency * 16);
        client.start();
        try {
            Semaphore inFlight = new Semaphore(concurrency);
            AtomicLong failed = new AtomicLong();
            AtomicLong answered = new AtomicLong();
            AtomicLong warmAt = new AtomicLong();
            AtomicLong warmCpu = new AtomicLong(processCpuNanos());
            long started = System.nanoTime();
            for (int i = 0; i < bodies.size(); i++) {
                for (int s = 0; s < subscriptions; s++) {
                    inFlight.acquire();
                    client.newRequest(URI.create(receiver.url("/s" + s))).method("POST")
                            .headers(h -> h.put(HttpHeader.CONTENT_TYPE, "application/json"))
                            .headers(h -> h.put("Idempotency-Key", "loop-" + UUID.randomUUID()))
                            .body(new BytesRequestContent(bodies.get(i)))
                            .send(result -> {
                                if (result.isFailed()) {
                                    failed.incrementAndGet();
                                }
                                if (answered.incrementAndGet() == warmupPairs) {
                                    warmAt.set(System.nanoTime());
                                    warmCpu.set(processCpuNanos());
                                }
                                inFlight.release();
                            });
                }
            }
            inFlight.acquire(concurrency);
            long ended = System.nanoTime();
            long endCpu = processCpuNanos();
            double seconds = (ended - started) / 1e9;
            double steadySeconds = (ended - (warmupPairs == 0 ? started : warmAt.get())) / 1e9;
            System.err.printf(Locale.ROOT, "bare loop: %d requests in %.1f s, %d failed%n", pairs, seconds,
                    failed.get());
            long steadyRequests = pairs - warmupPairs - failed.get();
            return new Rates((pairs - failed.get()) / seconds, steadyRequests / steadySeconds,
                    (endCpu - warmCpu.get()) / 1e3 / Math.max(1, steadyRequests));
        } finally {
            client.stop();
        }
    }

    /** A Jetty receiver that answers 200 after 5 ms on a scheduler (no thread waits); counts pairs by key. */
    static final class SlowReceiver implements AutoCloseable {
        private final Server server;
        private final ServerConnector connector;
        private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "receiver-answer");
            t.setDaemon(true);
            return t;
        });
        private final Map<String, Boolean> keys = new ConcurrentHashMap<>();
        private final AtomicLong hits = new AtomicLong();
        private final AtomicLong distinct = new AtomicLong();
        private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong last = new AtomicLong();
        private final AtomicLong warm = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong warmCpu = new AtomicLong();
        private volatile long warmupPairs;

        SlowReceiver() throws Exception {
            QueuedThreadPool threads = new QueuedThreadPool(64, 4);
            threads.setDaemon(true);
            server = new Server(threads);
            connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setAcceptQueueSize(4096);
            server.addConnector(connector);
            server.setHandler(new Handler.Abstract() {
                @Override
                public boolean handle(Request request, Response response, Callback callback) {
                    String key = request.getHeaders().get("Idempotency-Key");
                    Content.Source.asByteArrayAsync(request, 1 << 20).whenComplete((body, error) -> {
                        if (key != null && !key.startsWith("loop-")) {
                            hits.incrementAndGet();
                            if (keys.putIfAbsent(key, Boolean.TRUE) == null) {
                                long now = System.currentTimeMillis();
                                first.accumulateAndGet(now, Math::min);
                                last.accumulateAndGet(now, Math::max);
                                long n = distinct.incrementAndGet();
                                if (n == warmupPairs || warmupPairs == 0 && n == 1) {
                                    warm.set(now);
                                    warmCpu.set(processCpuNanos());
                                }
                            }
                        }
                        scheduler.schedule(() -> {
                            response.setStatus(200);
                            callback.succeeded();
                        }, ANSWER_AFTER_MILLIS, TimeUnit.MILLISECONDS);
                    });
                    return true;
                }
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + connector.getLocalPort() + path;
        }

        long distinct() {
            return keys.size();
        }

        long hits() {
            return hits.get();
        }

        long firstMillis() {
            return first.get();
        }

        long lastMillis() {
            return last.get();
        }

        /** When the warm-up's last pair arrived (the first pair's time without a warm-up). */
        long warmMillis() {
            return warm.get();
        }

        /** The JVM's CPU time when the warm-up's last pair arrived. */
        long warmCpuNanos() {
            return warmCpu.get();
        }

        /** Forgets what arrived; the next run's warm-up ends with its {@code warmupPairs}-th distinct pair. */
        void reset(long warmupPairs) {
            keys.clear();
            hits.set(0);
            distinct.set(0);
            first.set(Long.MAX_VALUE);
            last.set(0);
            warm.set(Long.MAX_VALUE);
            warmCpu.set(processCpuNanos());
            this.warmupPairs = warmupPairs;
        }

        @Override
        public void close() throws Exception {
            server.stop();
            scheduler.shutdownNow();
        }
    }
}
