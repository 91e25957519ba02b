package io.changestream.bench.deadreceiver;

import com.sun.net.httpserver.HttpServer;
import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.bench.alerts.AlertBenchSupport;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Two webhook subscriptions on one alert service, events produced to {@code changes} at a fixed rate. Phase 1 (the
 * baseline, same run): only the healthy subscription — its produce → receive p99 and the group's lag. Phase 2: the
 * dead subscription is added, its receiver answering {@code 503 Retry-After: 3600} (mode 503) or {@code 410} (mode
 * 410), and as many events again at the same rate: the healthy p99 and the lag must stay flat (p99 ≤ 2× phase 1,
 * lag ≤ one second of events), the dead subscription's pairs end parked on the retry path. Then the receiver
 * answers 200, the destination is resumed through the admin API, and every parked pair must arrive, in per-entity
 * order. Everything in this JVM (broker, alert service, receivers); the last line printed is {@code RESULT {...}}.
 *
 * <p>Arguments: rate (events/s, default 1000), seconds per phase (default 60), modes ({@code 503,410}).
 */
public final class DeadReceiverBench {

    private static final int ENTITIES = 1_000;
    private static final long LAG_SAMPLE_MILLIS = 250;

    private DeadReceiverBench() {
    }

    /** One mode's figures. */
    private record Run(String mode, long healthyP99Alone, long healthyP99, long maxLagAlone, long maxLag,
                       long parked, long lost, long duplicates, long orderViolations, long drainMillis) {
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        String[] modes = (args.length > 2 ? args[2] : "503,410").split(",");
        List<Run> runs = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        try (KafkaBroker broker = Brokers.start(Map.of()); Receiver receiver = new Receiver()) {
            boolean first = true;
            for (String mode : modes) {
                Run run = run(broker, receiver, mode.trim(), rate, seconds, first ? Math.min(seconds, 10) : 3);
                first = false;
                runs.add(run);
                table.append(String.format(Locale.ROOT, "%-5s healthy p99 alone %5d ms, with dead %5d ms (%.2fx); "
                                + "max lag alone %6d, with dead %6d events; parked %6d; lost %d; duplicates %d; "
                                + "order violations %d; drain after resume %.1f s%n", run.mode(), run.healthyP99Alone(),
                        run.healthyP99(), run.healthyP99() / (double) Math.max(1, run.healthyP99Alone()),
                        run.maxLagAlone(), run.maxLag(), run.parked(), run.lost(), run.duplicates(),
                        run.orderViolations(), run.drainMillis() / 1000.0));
            }
        }
        Run worst = runs.get(0);
        long p99 = runs.stream().mapToLong(Run::healthyP99).max().orElse(-1);
        long alone = runs.stream().mapToLong(Run::healthyP99Alone).max().orElse(-1);
        StringBuilder perMode = new StringBuilder();
        for (Run r : runs) {
            perMode.append(perMode.length() == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"mode\":\"%s\",\"healthy_p99_ms\":%d,\"healthy_p99_ms_alone\":%d,\"max_lag_events\":%d,"
                            + "\"max_lag_events_alone\":%d,\"parked\":%d,\"lost\":%d,\"duplicates\":%d,"
                            + "\"order_violations\":%d,\"drain_seconds\":%.1f}", r.mode(), r.healthyP99(),
                    r.healthyP99Alone(), r.maxLag(), r.maxLagAlone(), r.parked(), r.lost(), r.duplicates(),
                    r.orderViolations(), r.drainMillis() / 1000.0));
        }
        System.out.print(table);
        System.out.printf(Locale.ROOT, "RESULT {\"scenario\":\"dead-receiver\",\"rate\":%d,\"seconds\":%d,"
                        + "\"healthy_p99_ms\":%d,\"healthy_p99_ms_alone\":%d,\"max_lag_events\":%d,\"parked\":%d,"
                        + "\"lost\":%d,\"runs\":[%s]}%n", rate, seconds, p99, alone,
                runs.stream().mapToLong(Run::maxLag).max().orElse(-1),
                runs.stream().mapToLong(Run::parked).min().orElse(worst.parked()),
                runs.stream().mapToLong(Run::lost).sum(), perMode);
        System.out.flush();
        System.exit(0);
    }

    private static Run run(KafkaBroker broker, Receiver receiver, String mode, int rate, int seconds,
                           int warmUpSeconds) throws Exception {
        String ns = "bench-dead-" + mode + "-" + UUID.randomUUID().toString().substring(0, 6) + ".";
        String group = ns + "alerts";
        TopicCatalog catalog = AlertBenchSupport.provision(broker, ns);
        String healthyPath = "/healthy-" + mode;
        String deadPath = "/dead-" + mode;
        receiver.answer(deadPath, mode.equals("410") ? 410 : 503, mode.equals("410") ? null : "3600");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            try (AlertService alerts = AlertService.start(AlertServiceConfig.from(
                         AlertBenchSupport.settings(broker, ns, group), Map.of()));
                 KafkaProducer<String, String> producer = producer(broker)) {
                subscribe(alerts.httpPort(), "healthy-" + mode, receiver.url(healthyPath));
                // warm-up: class loading and JIT on the healthy path, not measured
                Map<String, Long> warm = produce(producer, catalog, rate, warmUpSeconds, null);
                receiver.await(healthyPath, warm.keySet(), Duration.ofSeconds(60));
                System.err.printf("%s: phase 1, healthy alone, %d events/s for %d s%n", mode, rate, seconds);
                LagSampler lagAlone = new LagSampler(admin, group, catalog.changes());
                Map<String, Long> alone = produce(producer, catalog, rate, seconds, null);
                receiver.await(healthyPath, alone.keySet(), Duration.ofSeconds(120));
                lagAlone.stop();
                long p99Alone = receiver.p99(healthyPath, alone);

                String dead = subscribe(alerts.httpPort(), "dead-" + mode, receiver.url(deadPath));
                System.err.printf("%s: phase 2, with the dead receiver, %d events/s for %d s%n", mode, rate, seconds);
                List<String> order = new ArrayList<>();
                LagSampler lag = new LagSampler(admin, group, catalog.changes());
                Map<String, Long> withDead = produce(producer, catalog, rate, seconds, order);
                receiver.await(healthyPath, withDead.keySet(), Duration.ofSeconds(120));
                long p99 = receiver.p99(healthyPath, withDead);
                long parked = awaitParked(alerts, withDead.size(), Duration.ofSeconds(60));
                lag.stop();

                System.err.printf("%s: receiver recovers, destination resumed; %d parked pairs to drain%n", mode,
                        parked);
                receiver.answer(deadPath, 200, null);
                long resumedAt = System.currentTimeMillis();
                AlertBenchSupport.resume(alerts.httpPort(), dead);
                receiver.await(deadPath, withDead.keySet(), Duration.ofSeconds(60 + withDead.size() / 20L));
                long drain = receiver.lastFirstArrival(deadPath) - resumedAt;
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // late duplicates, if any
                long lost = receiver.missing(healthyPath, alone.keySet()) + receiver.missing(healthyPath,
                        withDead.keySet()) + receiver.missing(deadPath, withDead.keySet());
                long duplicates = receiver.duplicates(healthyPath) + receiver.duplicates(deadPath);
                return new Run(mode, p99Alone, p99, lagAlone.max(), lag.max(), parked, lost, duplicates,
                        receiver.orderViolations(deadPath, order), drain);
            }
        }
    }

    private static KafkaProducer<String, String> producer(KafkaBroker broker) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 1),
                new StringSerializer(), new StringSerializer());
    }

    /**
     * Produces {@code rate} events/s for {@code seconds} over {@value #ENTITIES} entities (paced every 10 ms); returns
     * event id → send time; {@code order} (if given) gets the ids in produce order.
     */
    private static Map<String, Long> produce(KafkaProducer<String, String> producer, TopicCatalog catalog, int rate,
                                             int seconds, List<String> order) {
        Map<String, Long> sent = new HashMap<>();
        long total = (long) rate * seconds;
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 2_000_000) {
                LockSupport.parkNanos(wait);
            }
            String entity = UUID.nameUUIDFromBytes(("dead-bench-" + (i % ENTITIES)).getBytes()).toString();
            long now = System.currentTimeMillis();
            ChangeEvent e = new ChangeEvent(UUID.randomUUID().toString(), ChangeEvent.ENTITY_UPDATED, "table", entity,
                    null, "svc.db.t" + (i % ENTITIES), 0.1, 0.2, "bench", null, now, null, null, null);
            sent.put(e.id(), now);
            if (order != null) {
                order.add(e.id() + " " + entity);
            }
            producer.send(new ProducerRecord<>(catalog.changes().name(), TopicKeys.change(e),
                    Serdes.changeEvent().toJson(e)));
        }
        producer.flush();
        return sent;
    }

    /** Waits until the retry path holds {@code expected} records (or the time is up); returns the most seen. */
    private static long awaitParked(AlertService alerts, long expected, Duration within) {
        long deadline = System.currentTimeMillis() + within.toMillis();
        long most = 0;
        while (System.currentTimeMillis() < deadline) {
            Gauge depth = alerts.meters().find("changestream.alert.retry.depth").gauge();
            most = Math.max(most, depth == null ? 0 : (long) depth.value());
            if (most >= expected) {
                break;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
        return most;
    }

    /** A webhook subscription that retries for as long as the bench runs; returns its id. */
    private static String subscribe(int port, String name, String endpoint) throws Exception {
        String id = AlertBenchSupport.subscribe(port, name, endpoint, 100_000);
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // the subscription view of the processor
        return id;
    }

    /** Samples the group's lag on {@code changes} (log end − committed, all partitions) every 250 ms. */
    private static final class LagSampler {
        private final AtomicLong max = new AtomicLong();
        private final Thread thread;
        private volatile boolean stopped;

        LagSampler(Admin admin, String group, io.changestream.topics.TopicSpec changes) {
            this.thread = new Thread(() -> {
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (int p = 0; p < changes.partitions(); p++) {
                    latest.put(new TopicPartition(changes.name(), p), OffsetSpec.latest());
                }
                while (!stopped) {
                    try {
                        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                        long lag = 0;
                        for (var e : admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet()) {
                            OffsetAndMetadata c = committed.get(e.getKey());
                            lag += Math.max(0, e.getValue().offset() - (c == null ? 0 : c.offset()));
                        }
                        max.accumulateAndGet(lag, Math::max);
                    } catch (Exception e) {
                        System.err.println("lag sample failed: " + e);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(LAG_SAMPLE_MILLIS));
                }
            }, "lag-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join(15_000);
        }

        long max() {
            return max.get();
        }
    }

    /** A local receiver: per path a status (and Retry-After), every request recorded by its Idempotency-Key. */
    private static final class Receiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService pool = Executors.newFixedThreadPool(32);
        private final Map<String, Integer> statuses = new ConcurrentHashMap<>();
        private final Map<String, String> retryAfters = new ConcurrentHashMap<>();
        /** path → event id → first 2xx arrival. */
        private final Map<String, Map<String, Long>> first = new ConcurrentHashMap<>();
        /** path → the event id of every 2xx, in arrival order. */
        private final Map<String, List<String>> okIds = new ConcurrentHashMap<>();

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
            server.setExecutor(pool);
            server.createContext("/", exchange -> {
                long now = System.currentTimeMillis();
                exchange.getRequestBody().readAllBytes();
                String path = exchange.getRequestURI().getPath();
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                int status = statuses.getOrDefault(path, 200);
                if (key != null && status < 300) {
                    String eventId = key.substring(key.indexOf(':') + 1);
                    synchronized (this) {
                        first.computeIfAbsent(path, p -> new ConcurrentHashMap<>()).putIfAbsent(eventId, now);
                        okIds.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(eventId);
                    }
                }
                String retryAfter = retryAfters.get(path);
                if (retryAfter != null && status >= 400) {
                    exchange.getResponseHeaders().add("Retry-After", retryAfter);
                }
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        void answer(String path, int status, String retryAfter) {
            statuses.put(path, status);
            if (retryAfter == null) {
                retryAfters.remove(path);
            } else {
                retryAfters.put(path, retryAfter);
            }
        }

        void await(String path, java.util.Set<String> ids, Duration within) {
            long deadline = System.currentTimeMillis() + within.toMillis();
            while (System.currentTimeMillis() < deadline && missing(path, ids) > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }

        long missing(String path, java.util.Set<String> ids) {
            Map<String, Long> got = first.getOrDefault(path, Map.of());
            return ids.stream().filter(id -> !got.containsKey(id)).count();
        }

        long p99(String path, Map<String, Long> sent) {
            Map<String, Long> got = first.getOrDefault(path, Map.of());
            List<Long> latencies = new ArrayList<>();
            sent.forEach((id, at) -> {
                Long t = got.get(id);
                if (t != null) {
                    latencies.add(Math.max(0, t - at));
                }
            });
            latencies.sort(null);
            return latencies.isEmpty() ? -1
                    : latencies.get((int) Math.min(latencies.size() - 1, Math.ceil(0.99 * latencies.size()) - 1));
        }

        long lastFirstArrival(String path) {
            return first.getOrDefault(path, Map.of()).values().stream().mapToLong(Long::longValue).max().orElse(0);
        }

        long duplicates(String path) {
            return okIds.getOrDefault(path, List.of()).size() - first.getOrDefault(path, Map.of()).size();
        }

        /** Per entity, first arrivals out of produce order. */
        long orderViolations(String path, List<String> produced) {
            Map<String, Integer> index = new HashMap<>();
            Map<String, String> entityOf = new HashMap<>();
            for (int i = 0; i < produced.size(); i++) {
                String[] idEntity = produced.get(i).split(" ");
                index.put(idEntity[0], i);
                entityOf.put(idEntity[0], idEntity[1]);
            }
            Map<String, Integer> last = new HashMap<>();
            java.util.Set<String> seen = new java.util.HashSet<>();
            long violations = 0;
            for (String id : okIds.getOrDefault(path, List.of())) {
                Integer i = index.get(id);
                if (i == null || !seen.add(id)) {
                    continue;
                }
                Integer previous = last.put(entityOf.get(id), i);
                if (previous != null && previous > i) {
                    violations++;
                }
            }
            return violations;
        }

        @Override
        public void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
