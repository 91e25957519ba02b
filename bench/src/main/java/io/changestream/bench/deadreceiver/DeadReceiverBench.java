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
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
 * Two subscriptions on one alert service, events produced to {@code changes} at a fixed rate. Phase 1 (the baseline,
 * same run): only the healthy webhook subscription — its produce → receive p99 and the group's lag. Phase 2: a bad
 * subscription is added and as many events again are produced at the same rate; the healthy p99 must stay flat. The
 * bad receiver, by mode: {@code 503} answers {@code 503 Retry-After: 3600}; {@code 410} answers 410 (suspends);
 * {@code hang} accepts, reads and never answers (the destination's {@code timeout + readTimeout} at the service's
 * maximum); {@code slow} answers after 10 s; {@code flaky} answers 503 (no Retry-After) for 60 s, then 200;
 * {@code churn} is one subscription (of 5 of the 1,000 entities) with seventeen webhook destinations of seventeen
 * distinct timeouts plus an at-most-once destination answering after 3 s. Then the receiver answers 200, the
 * destination is resumed through the admin API, and every pair must arrive once, in per-entity order. Counted per
 * mode: lost, duplicates, order violations, requests aborted at the other destinations (a response the healthy
 * receiver could not write), connections still open to the bad receiver at the end. Everything in this JVM
 * (broker, alert service, receivers); the last line printed is {@code RESULT {...}}.
 *
 * <p>Arguments: rate (events/s, default 1000), seconds per phase (default 60), modes
 * ({@code 503,410,hang,slow,flaky,churn}).
 */
public final class DeadReceiverBench {

    private static final int ENTITIES = 1_000;
    private static final long LAG_SAMPLE_MILLIS = 250;
    /** The churn mode's destinations of distinct timeouts. */
    private static final int CHURN_DESTINATIONS = 17;
    /** The churn subscription's filter: 5 of the {@value #ENTITIES} entities (its at-most-once receiver takes 3 s). */
    private static final String CHURN_ENTITIES = "matchAnyEntityFqn({'^svc\\.db\\.t1[0-4]$'})";
    /** How long the flaky receiver answers 503. */
    private static final Duration FLAKY_FOR = Duration.ofSeconds(60);

    private DeadReceiverBench() {
    }

    /** One mode's figures. */
    private record Run(String mode, long healthyP99Alone, long healthyP99, long maxLagAlone, long maxLag,
                       long parked, long lost, long duplicates, long orderViolations, long drainMillis, long aborted,
                       long openConnections) {
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        String[] modes = (args.length > 2 ? args[2] : "503,410,hang,slow,flaky,churn").split(",");
        List<Run> runs = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        try (KafkaBroker broker = Brokers.start(Map.of()); Receiver receiver = new Receiver()) {
            boolean first = true;
            for (String mode : modes) {
                Run run = run(broker, receiver, mode.trim(), rate, seconds, first ? Math.min(seconds, 10) : 3);
                first = false;
                runs.add(run);
                table.append(String.format(Locale.ROOT, "%-5s healthy p99 alone %5d ms, with bad %5d ms (%.2fx); "
                                + "max lag alone %6d, with bad %6d events; parked %6d; lost %d; duplicates %d; "
                                + "order violations %d; aborted %d; open connections %d; drain after resume %.1f s%n",
                        run.mode(), run.healthyP99Alone(), run.healthyP99(), ratio(run), run.maxLagAlone(),
                        run.maxLag(), run.parked(), run.lost(), run.duplicates(), run.orderViolations(),
                        run.aborted(), run.openConnections(), run.drainMillis() / 1000.0));
            }
        }
        Run worst = runs.get(0);
        long p99 = runs.stream().mapToLong(Run::healthyP99).max().orElse(-1);
        long alone = runs.stream().mapToLong(Run::healthyP99Alone).max().orElse(-1);
        StringBuilder perMode = new StringBuilder();
        for (Run r : runs) {
            perMode.append(perMode.length() == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"mode\":\"%s\",\"healthy_p99_ms\":%d,\"healthy_p99_ms_alone\":%d,\"p99_ratio\":%.2f,"
                            + "\"max_lag_events\":%d,\"max_lag_events_alone\":%d,\"parked\":%d,\"lost\":%d,"
                            + "\"duplicates\":%d,\"order_violations\":%d,\"aborted\":%d,\"open_connections\":%d,"
                            + "\"drain_seconds\":%.1f}", r.mode(), r.healthyP99(), r.healthyP99Alone(), ratio(r),
                    r.maxLag(), r.maxLagAlone(), r.parked(), r.lost(), r.duplicates(), r.orderViolations(),
                    r.aborted(), r.openConnections(), r.drainMillis() / 1000.0));
        }
        System.out.print(table);
        System.out.printf(Locale.ROOT, "RESULT {\"scenario\":\"dead-receiver\",\"rate\":%d,\"seconds\":%d,"
                        + "\"healthy_p99_ms\":%d,\"healthy_p99_ms_alone\":%d,\"max_lag_events\":%d,\"parked\":%d,"
                        + "\"lost\":%d,\"duplicates\":%d,\"order_violations\":%d,\"aborted\":%d,"
                        + "\"worst_p99_ratio\":%.2f,\"runs\":[%s]}%n", rate, seconds, p99, alone,
                runs.stream().mapToLong(Run::maxLag).max().orElse(-1),
                runs.stream().mapToLong(Run::parked).min().orElse(worst.parked()),
                runs.stream().mapToLong(Run::lost).sum(), runs.stream().mapToLong(Run::duplicates).sum(),
                runs.stream().mapToLong(Run::orderViolations).sum(), runs.stream().mapToLong(Run::aborted).sum(),
                runs.stream().mapToDouble(DeadReceiverBench::ratio).max().orElse(-1), perMode);
        System.out.flush();
        System.exit(0);
    }

    private static double ratio(Run r) {
        return r.healthyP99() / (double) Math.max(1, r.healthyP99Alone());
    }

    private static Run run(KafkaBroker broker, Receiver receiver, String mode, int rate, int seconds,
                           int warmUpSeconds) throws Exception {
        String ns = "bench-dead-" + mode + "-" + UUID.randomUUID().toString().substring(0, 6) + ".";
        String group = ns + "alerts";
        TopicCatalog catalog = AlertBenchSupport.provision(broker, ns);
        String healthyPath = "/healthy-" + mode;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()));
             BadReceiver bad = new BadReceiver()) {
            try (AlertService alerts = AlertService.start(AlertServiceConfig.from(
                         AlertBenchSupport.settings(broker, ns, group), Map.of()));
                 KafkaProducer<String, String> producer = producer(broker)) {
                subscribe(alerts.httpPort(), "healthy-" + mode, List.of(AlertBenchSupport.webhook(
                        receiver.url(healthyPath), null, null)));
                // warm-up: class loading and JIT on the healthy path, not measured
                Map<String, Long> warm = produce(producer, catalog, rate, warmUpSeconds, null);
                receiver.arrivals.await(healthyPath, warm.keySet(), Duration.ofSeconds(60));
                System.err.printf("%s: phase 1, healthy alone, %d events/s for %d s%n", mode, rate, seconds);
                LagSampler lagAlone = new LagSampler(admin, group, catalog.changes());
                Map<String, Long> alone = produce(producer, catalog, rate, seconds, null);
                receiver.arrivals.await(healthyPath, alone.keySet(), Duration.ofSeconds(120));
                lagAlone.stop();
                long p99Alone = receiver.arrivals.p99(healthyPath, alone);
                long abortedBefore = receiver.aborted();

                List<String> badPaths = new ArrayList<>();
                String dead = AlertBenchSupport.subscribe(alerts.httpPort(), "bad-" + mode, badDestinations(mode,
                        receiver, bad, badPaths), 100_000, mode.equals("churn") ? CHURN_ENTITIES : null);
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // the subscription view of the processor
                long phase2 = System.currentTimeMillis();
                behave(mode, bad, phase2);
                System.err.printf("%s: phase 2, with the bad receiver, %d events/s for %d s%n", mode, rate, seconds);
                List<String> order = new ArrayList<>();
                LagSampler lag = new LagSampler(admin, group, catalog.changes());
                Map<String, Long> withBad = produce(producer, catalog, rate, seconds, order);
                receiver.arrivals.await(healthyPath, withBad.keySet(), Duration.ofSeconds(120));
                long p99 = receiver.arrivals.p99(healthyPath, withBad);
                long parked = mode.equals("503") || mode.equals("410")
                        ? awaitParked(alerts, withBad.size(), Duration.ofSeconds(60)) : retryDepth(alerts);
                lag.stop();
                long aborted = receiver.aborted() - abortedBefore;

                if (mode.equals("flaky")) { // the receiver recovers by itself after FLAKY_FOR
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.max(0,
                            phase2 + FLAKY_FOR.toMillis() - System.currentTimeMillis())));
                }
                System.err.printf("%s: receiver recovers, destination resumed; %d pairs in the retry path%n", mode,
                        retryDepth(alerts));
                bad.answer(200, null);
                long resumedAt = System.currentTimeMillis();
                AlertBenchSupport.resume(alerts.httpPort(), dead);
                java.util.Set<String> expected = mode.equals("churn") ? churnIds(order) : withBad.keySet();
                Duration drainBound = Duration.ofSeconds(120 + withBad.size() / 20L);
                for (String path : badPaths) {
                    arrivalsOf(path, receiver, bad).await(path, expected, drainBound);
                }
                long drain = badPaths.stream().mapToLong(path -> arrivalsOf(path, receiver, bad)
                        .lastFirstArrival(path)).max().orElse(resumedAt) - resumedAt;
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // late duplicates, if any
                long lost = receiver.arrivals.missing(healthyPath, alone.keySet())
                        + receiver.arrivals.missing(healthyPath, withBad.keySet());
                long duplicates = receiver.arrivals.duplicates(healthyPath);
                long violations = 0;
                for (String path : badPaths) {
                    Arrivals a = arrivalsOf(path, receiver, bad);
                    lost += a.missing(path, expected);
                    duplicates += a.duplicates(path);
                    violations += a.orderViolations(path, order);
                }
                return new Run(mode, p99Alone, p99, lagAlone.max(), lag.max(), parked, lost, duplicates, violations,
                        Math.max(0, drain), aborted, bad.openConnections());
            }
        }
    }

    /** The bad subscription's destinations of a mode; their paths (at the receiver that records them) go to paths. */
    private static List<String> badDestinations(String mode, Receiver receiver, BadReceiver bad, List<String> paths) {
        List<String> out = new ArrayList<>();
        if (mode.equals("churn")) {
            for (int i = 1; i <= CHURN_DESTINATIONS; i++) {
                String path = "/churn-" + i;
                paths.add(path);
                out.add(AlertBenchSupport.webhook(receiver.url(path), null, "\"timeout\": " + i + ", \"readTimeout\": 5"));
            }
            paths.add(BadReceiver.PATH);
            out.add(AlertBenchSupport.webhook(bad.url(), "\"delivery\": \"atMostOnce\"", null));
            return out;
        }
        paths.add(BadReceiver.PATH);
        // hang: the longest timeouts the service accepts (delivery.maxRequestTime 30 s)
        out.add(AlertBenchSupport.webhook(bad.url(), null, mode.equals("hang") ? "\"timeout\": 10, \"readTimeout\": 20"
                : null));
        return out;
    }

    /** Sets the bad receiver's behaviour for a mode, from the start of phase 2. */
    private static void behave(String mode, BadReceiver bad, long phase2) {
        switch (mode) {
            case "503" -> bad.answer(503, "3600");
            case "410" -> bad.answer(410, null);
            case "hang" -> bad.hang();
            case "slow" -> bad.slow(10_000);
            case "flaky" -> bad.flaky(phase2 + FLAKY_FOR.toMillis());
            case "churn" -> bad.slow(3_000);
            default -> throw new IllegalArgumentException("unknown mode " + mode
                    + " (503, 410, hang, slow, flaky, churn)");
        }
    }

    /** The event ids of phase 2 that the churn subscription's filter selects (entities t10…t14). */
    private static java.util.Set<String> churnIds(List<String> order) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (String idEntity : order) {
            String[] parts = idEntity.split(" ");
            for (int e = 10; e <= 14; e++) {
                if (parts[1].equals(entity(e))) {
                    ids.add(parts[0]);
                }
            }
        }
        return ids;
    }

    /** The id of entity {@code i} (fqn {@code svc.db.t<i>}). */
    private static String entity(long i) {
        return UUID.nameUUIDFromBytes(("dead-bench-" + i).getBytes()).toString();
    }

    private static Arrivals arrivalsOf(String path, Receiver receiver, BadReceiver bad) {
        return path.equals(BadReceiver.PATH) ? bad.arrivals : receiver.arrivals;
    }

    private static long retryDepth(AlertService alerts) {
        Gauge depth = alerts.meters().find("changestream.alert.retry.depth").gauge();
        return depth == null ? 0 : (long) depth.value();
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
            String entity = entity(i % ENTITIES);
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

    /** A subscription that retries for as long as the bench runs; returns its id. */
    private static String subscribe(int port, String name, List<String> destinations) throws Exception {
        String id = AlertBenchSupport.subscribe(port, name, destinations, 100_000);
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

    /** Per path, the 2xx answers by event id (from {@code Idempotency-Key: <subscription>:<event>}). Thread-safe. */
    static final class Arrivals {
        /** path → event id → first 2xx arrival. */
        private final Map<String, Map<String, Long>> first = new ConcurrentHashMap<>();
        /** path → the event id of every 2xx, in arrival order. */
        private final Map<String, List<String>> okIds = new ConcurrentHashMap<>();

        synchronized void record(String path, String idempotencyKey, long at) {
            if (idempotencyKey == null) {
                return;
            }
            String eventId = idempotencyKey.substring(idempotencyKey.indexOf(':') + 1);
            first.computeIfAbsent(path, p -> new ConcurrentHashMap<>()).putIfAbsent(eventId, at);
            okIds.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(eventId);
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
    }

    /**
     * The healthy receiver (and the churn mode's seventeen): 200 to every request (after a per-path delay, when one is
     * set); a response it could not write (the client aborted the exchange) is counted as aborted.
     */
    private static final class Receiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService pool = Executors.newFixedThreadPool(64);
        private final Map<String, Long> delays = new ConcurrentHashMap<>();
        private final AtomicLong aborted = new AtomicLong();
        final Arrivals arrivals = new Arrivals();

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
            server.setExecutor(pool);
            server.createContext("/", exchange -> {
                String path = exchange.getRequestURI().getPath();
                try {
                    exchange.getRequestBody().readAllBytes();
                    long delay = delays.getOrDefault(path, 0L);
                    if (delay > 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(delay));
                    }
                    long now = System.currentTimeMillis();
                    exchange.sendResponseHeaders(200, -1);
                    exchange.getResponseBody().flush();
                    arrivals.record(path, exchange.getRequestHeaders().getFirst("Idempotency-Key"), now);
                } catch (IOException e) {
                    aborted.incrementAndGet();
                } finally {
                    exchange.close();
                }
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        void delay(String path, long millis) {
            delays.put(path, millis);
        }

        long aborted() {
            return aborted.get();
        }

        @Override
        public void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    /**
     * The bad receiver, on raw sockets so that it can hang and count its connections: HTTP/1.1 with keep-alive, one
     * thread per connection; answers every request with the current status (and {@code Retry-After}), after a delay
     * ({@link #slow}), or never ({@link #hang}: the request is read and the connection held until the client closes
     * it). Records its 2xx answers in {@link #arrivals} under {@link #PATH}.
     */
    private static final class BadReceiver implements AutoCloseable {
        static final String PATH = "/bad";
        private final ServerSocket socket;
        private final AtomicLong open = new AtomicLong();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        final Arrivals arrivals = new Arrivals();
        private volatile int status = 200;
        private volatile String retryAfter;
        private volatile long delayMillis;
        private volatile boolean hanging;
        /** Epoch ms until which a flaky receiver answers 503, then 200. */
        private volatile long flakyUntil;

        BadReceiver() throws IOException {
            socket = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket s = socket.accept();
                        open.incrementAndGet();
                        sockets.add(s);
                        Thread t = new Thread(() -> serve(s), "bad-receiver");
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "bad-receiver-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort() + PATH;
        }

        void answer(int code, String after) {
            hanging = false;
            delayMillis = 0;
            flakyUntil = 0;
            retryAfter = after;
            status = code;
        }

        void hang() {
            hanging = true;
        }

        void slow(long millis) {
            answer(200, null);
            delayMillis = millis;
        }

        void flaky(long until) {
            answer(200, null);
            flakyUntil = until;
        }

        long openConnections() {
            return open.get();
        }

        private void serve(Socket s) {
            try (s; InputStream in = new BufferedInputStream(s.getInputStream());
                 OutputStream out = s.getOutputStream()) {
                while (true) {
                    String key = readRequest(in);
                    if (key == null) {
                        return; // the client closed the connection
                    }
                    if (hanging && !holdUntilReleased(s, in)) {
                        return;
                    }
                    if (delayMillis > 0) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(delayMillis));
                    }
                    int code = flakyUntil > System.currentTimeMillis() ? 503 : status;
                    String after = code >= 400 ? retryAfter : null;
                    out.write(("HTTP/1.1 " + code + " X\r\nContent-Length: 0\r\n"
                            + (after == null ? "" : "Retry-After: " + after + "\r\n") + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (code < 300) {
                        arrivals.record(PATH, key, System.currentTimeMillis());
                    }
                }
            } catch (IOException e) {
                // the client aborted: nothing was answered
            } finally {
                open.decrementAndGet();
                sockets.remove(s);
            }
        }

        /** Holds a request unanswered while hanging; false when the client closed the connection meanwhile. */
        private boolean holdUntilReleased(Socket s, InputStream in) throws IOException {
            s.setSoTimeout(200);
            try {
                while (hanging) {
                    try {
                        if (in.read() < 0) {
                            return false;
                        }
                    } catch (java.net.SocketTimeoutException stillThere) {
                        // the client waits too
                    }
                }
                return false; // released: this exchange is dropped unanswered (the client gave it up long ago)
            } finally {
                s.setSoTimeout(0);
            }
        }

        /** Reads one request (headers and body); its Idempotency-Key ("" without), or null at the end. */
        private static String readRequest(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            String key = "";
            long length = 0;
            boolean any = false;
            while (true) {
                int c = in.read();
                if (c < 0) {
                    return null;
                }
                any = true;
                if (c == '\n') {
                    String header = line.toString().strip();
                    line.setLength(0);
                    if (header.isEmpty()) {
                        break;
                    }
                    int colon = header.indexOf(':');
                    if (colon > 0) {
                        String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
                        String value = header.substring(colon + 1).strip();
                        if (name.equals("idempotency-key")) {
                            key = value;
                        } else if (name.equals("content-length")) {
                            length = Long.parseLong(value);
                        }
                    }
                } else {
                    line.append((char) c);
                }
            }
            for (long i = 0; i < length; i++) {
                if (in.read() < 0) {
                    return null;
                }
            }
            return any ? key : null;
        }

        @Override
        public void close() throws IOException {
            hanging = false;
            socket.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
