package io.changestream.bench.e2e;

import com.sun.net.httpserver.HttpServer;
import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.bench.alerts.AlertBenchSupport;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Rows inserted into the platform's {@code change_event} table at a fixed rate (each its own commit) travel through
 * the cdc-connector, {@code changes} and the alert service to a local webhook receiver; latency p50/p95/p99 is
 * measured from each row's <em>scheduled</em> insert time (a generator that falls behind reports its own lag, as
 * Hookdeck's Outpost load test measures), with throughput, duplicates and lost rows, and every run's ledger must
 * balance — {@code inserted × subscriptions == delivered + dead-lettered + retrying} — or the run is void (exit 1). Then, in a second phase of the same run (so that the two
 * do not compete for the cores), as many rows are inserted the same way at the same rate while a poller modelled on
 * the platform reads {@code change_event} every 10 s (all new rows each time: the poll design's best case) and posts
 * them to the same receiver. Everything runs in this JVM (broker, PostgreSQL, capture, alert service); the last line printed is
 * {@code RESULT {...}}.
 *
 * <p>Each writer owns its entities (writer {@code w} of {@value #WRITERS} writes entities {@code w}, {@code w + 8},
 * …), so an entity's events come one per {@value #ENTITIES} rows and per-key order does not serialise a burst.
 * With {@code --subscriptions N} there are N webhook subscriptions on the same local receiver: each row is N pairs,
 * latency is measured per pair (commit → that subscription's request), lost and duplicates count pairs.
 *
 * <p>Arguments: rate (rows/s, default 1000), seconds (default 30), poll seconds of the baseline (default 10),
 * {@code --subscriptions N} (default 1) anywhere. A sweep: {@code --rates 200,1000,2000} and/or
 * {@code --subscriptions 1,10} runs every cell (seconds each) in one JVM and prints one row per cell; the baseline
 * poller runs only without a sweep.
 */
public final class E2eBench {

    /** Connections inserting in parallel (one commit per row each); group commit keeps up with the rate. */
    private static final int WRITERS = 8;
    /** Entities the rows are spread over, {@code ENTITIES / WRITERS} owned by each writer. */
    private static final int ENTITIES = 1_000;
    /** Seconds of rows at the measured rate sent through the whole path before measuring (class loading, JIT). */
    private static final int WARM_UP_SECONDS = 10;

    private E2eBench() {
    }

    /** One cell of a sweep: its rate, subscriptions, latency from the scheduled time and its ledger. */
    private record Cell(int rate, int subscriptions, Stats stats, long inserted, long deadLettered, long retrying,
                        long generatorLagP99) {
        /** {@code inserted × subscriptions == delivered + dead-lettered + retrying}: else the run is void. */
        boolean balanced() {
            return inserted * subscriptions == stats.delivered() + deadLettered + retrying;
        }

        String json() {
            return String.format(Locale.ROOT, "{\"rate\":%d,\"subscriptions\":%d,\"p50_ms\":%d,\"p95_ms\":%d,"
                    + "\"p99_ms\":%d,\"inserted\":%d,\"delivered\":%d,\"dead_lettered\":%d,\"retrying\":%d,"
                    + "\"duplicates\":%d,\"generator_lag_p99_ms\":%d,\"balanced\":%b}", rate, subscriptions,
                    stats.p50(), stats.p95(), stats.p99(), inserted, stats.delivered(), deadLettered, retrying,
                    stats.duplicates(), generatorLagP99, balanced());
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        List<Integer> subscriptionCounts = List.of(1);
        List<Integer> rates = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--subscriptions") && i + 1 < args.length) {
                subscriptionCounts = ints(args[++i]);
            } else if (args[i].equals("--rates") && i + 1 < args.length) {
                rates = ints(args[++i]);
            } else {
                positional.add(args[i]);
            }
        }
        int rate = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 1_000;
        int seconds = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 30;
        int pollSeconds = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 10;
        boolean sweep = rates != null || subscriptionCounts.size() > 1;
        if (rates == null) {
            rates = List.of(rate);
        }
        String ns = "bench-e2e.";
        Receiver receiver = new Receiver();
        StringBuilder report = new StringBuilder();
        List<Cell> cells = new ArrayList<>();
        try (KafkaBroker broker = Brokers.start(Map.of()); PostgresDatabase pg = PostgresDatabase.start()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            TopicCatalog catalog = AlertBenchSupport.provision(broker, ns);
            try (CdcConnector cdc = new CdcConnector(CdcConfig.fromMap(cdcSettings(pg, broker, ns))).start();
                 AlertService alerts = AlertService.start(AlertServiceConfig.from(alertSettings(broker, ns),
                         Map.of()))) {
                long deadline = System.currentTimeMillis() + 60_000;
                while (!cdc.streaming() && System.currentTimeMillis() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                List<String> subscribed = new ArrayList<>();
                for (int subscriptions : subscriptionCounts) {
                    while (subscribed.size() < subscriptions) {
                        subscribed.add(AlertBenchSupport.subscribe(alerts.httpPort(), "bench-" + subscribed.size(),
                                receiver.url("/alerts"), null));
                    }
                    while (subscribed.size() > subscriptions) {
                        AlertBenchSupport.call(alerts.httpPort(), "DELETE", "/api/v1/events/subscriptions/"
                                + subscribed.remove(subscribed.size() - 1), null);
                    }
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // the processor's subscription view
                    warmUp(pg, rates.get(0), receiver, subscriptions);
                    for (int cellRate : rates) {
                        receiver.reset();
                        long deadBefore = counter(alerts.httpPort(), "changestream_alert_dead_letters_total");
                        TopicProbe probe = new TopicProbe(broker.bootstrapServers(), catalog.changes().name());
                        Thread monitor = monitor(alerts.httpPort(), receiver);
                        Inserted rows = insert(pg, cellRate, seconds);
                        awaitDistinct(receiver, "/alerts", rows.scheduled().size() * subscriptions, 60_000L);
                        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // late duplicates, if any
                        probe.close();
                        monitor.interrupt();
                        Stats stats = receiver.stats("/alerts", rows.scheduled(), subscriptions);
                        Cell cell = new Cell(cellRate, subscriptions, stats, rows.scheduled().size(),
                                counter(alerts.httpPort(), "changestream_alert_dead_letters_total") - deadBefore,
                                counter(alerts.httpPort(), "changestream_alert_retry_depth"), rows.lagP99());
                        cells.add(cell);
                        report.append(changestreamReport(cellRate, seconds, subscriptions, stats, rows, receiver,
                                probe.seen)).append(waits(alerts.httpPort()));
                        report.append(String.format(Locale.ROOT, "  balance: %d inserted x %d subscriptions = %d;"
                                        + " delivered %d + dead-lettered %d + retrying %d = %d -> %s%n",
                                cell.inserted(), subscriptions, cell.inserted() * subscriptions, stats.delivered(),
                                cell.deadLettered(), cell.retrying(), stats.delivered() + cell.deadLettered()
                                        + cell.retrying(), cell.balanced() ? "balanced" : "VOID"));
                    }
                }
                if (!sweep) {
                    // phase 2: the platform's poll over as many rows at the same rate, inserted the same way
                    Baseline.startAfter = maxOffset(pg);
                    Baseline baseline = new Baseline(pg, receiver.url("/baseline"), pollSeconds);
                    baseline.start();
                    Inserted baselineRows = insert(pg, rate, seconds);
                    awaitDistinct(receiver, "/baseline", baselineRows.scheduled().size(),
                            60_000L + pollSeconds * 1_000L);
                    baseline.stop();
                    report.append(baselineReport(rate, subscriptionCounts.get(0), pollSeconds, cells.get(0),
                            receiver.stats("/baseline", baselineRows.scheduled(), 1)));
                } else {
                    report.append(sweepReport(seconds, cells));
                }
            }
        } finally {
            receiver.close();
        }
        System.out.print(report); // after every component stopped: RESULT stays the last line
        System.out.flush();
        // a run whose ledger does not balance is void (Hookdeck's rule): it must not pass for a measurement
        System.exit(cells.stream().allMatch(Cell::balanced) ? 0 : 1); // Debezium and Jetty leave threads behind
    }

    private static List<Integer> ints(String csv) {
        List<Integer> out = new ArrayList<>();
        for (String v : csv.split(",")) {
            out.add(Integer.parseInt(v.strip()));
        }
        return out;
    }

    /** A counter's or gauge's value summed over its series in the service's /metrics (0 when absent). */
    private static long counter(int port, String name) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        double sum = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Math.round(sum);
    }

    /** Every 5 s on stderr: deliveries so far and the runtime's queues, lag and pauses (why it is behind). */
    private static Thread monitor(int port, Receiver receiver) {
        Thread t = new Thread(() -> {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest status = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/api/v1/runtime/status")).header("Authorization", "Bearer " + AlertBenchSupport.TOKEN).build();
            java.util.regex.Pattern lag = java.util.regex.Pattern.compile("\"consumerLag\":(\\d+)");
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(5_000);
                    String body = http.send(status, HttpResponse.BodyHandlers.ofString()).body();
                    long totalLag = 0;
                    java.util.regex.Matcher m = lag.matcher(body);
                    while (m.find()) {
                        totalLag += Long.parseLong(m.group(1));
                    }
                    System.err.printf(Locale.ROOT, "delivered %d; queued %s, consumer lag %d, paused partitions %d,"
                                    + " events with pending deliveries %s%n", receiver.distinct("/alerts"),
                            body.replaceAll(".*\"queuedEvents\":(\\d+).*", "$1"), totalLag,
                            body.split("\"paused\":true", -1).length - 1,
                            body.replaceAll(".*\"eventsWithPendingDeliveries\":(\\d+).*", "$1"));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                System.err.println("monitor stopped: " + e);
            }
        }, "bench-monitor");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Where a lane's time went (the service's own timers, since start): webhook answer and ledger ack, mean/max. */
    private static String waits(int port) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        StringBuilder out = new StringBuilder("  alert service per event:");
        for (String timer : List.of("changestream_alert_delivery_seconds", "changestream_alert_ledger_write_seconds")) {
            double sum = 0;
            double count = 0;
            double max = 0;
            for (String line : body.split("\n")) {
                if (line.startsWith("#")) {
                    continue;
                }
                double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                if (line.startsWith(timer + "_sum")) {
                    sum += value;
                } else if (line.startsWith(timer + "_count")) {
                    count += value;
                } else if (line.startsWith(timer + "_max")) {
                    max = Math.max(max, value);
                }
            }
            out.append(String.format(Locale.ROOT, " %s mean %.1f / max %.0f ms (%d);", timer,
                    count == 0 ? 0 : sum * 1000 / count, max * 1000, (long) count));
        }
        return out.append(System.lineSeparator()).toString();
    }

    private static Map<String, String> cdcSettings(PostgresDatabase pg, KafkaBroker broker, String ns) {
        Map<String, String> s = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), ns,
                "cs_bench_e2e");
        s.put("poll.interval.ms", "10");
        s.put("postgres.slot.drop.on.stop", "true");
        return s;
    }

    private static Map<String, String> alertSettings(KafkaBroker broker, String ns) {
        Map<String, String> s = AlertBenchSupport.settings(broker, ns, "bench-e2e-alerts");
        String lanes = System.getenv("E2E_LANES");
        if (lanes != null && !lanes.isBlank()) {
            s.put("runtime.lanes", lanes);
        }
        return s;
    }

    /**
     * Rows first at the measured rate for {@link #WARM_UP_SECONDS}, so that class loading, JIT and connection set-up
     * are not measured (a short burst left every lane's path cold: the first seconds queued hundreds of events).
     */
    private static void warmUp(PostgresDatabase pg, int rate, Receiver receiver, int subscriptions)
            throws Exception {
        int rows = insert(pg, rate, WARM_UP_SECONDS).scheduled().size();
        awaitDistinct(receiver, "/alerts", (long) rows * subscriptions, 120_000L);
        receiver.reset();
    }

    private static long maxOffset(PostgresDatabase pg) throws Exception {
        try (Connection c = pg.connection(); PreparedStatement s = c.prepareStatement(
                "SELECT max(\"offset\") FROM change_event"); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void awaitDistinct(Receiver receiver, String path, long rows, long timeoutMillis) {
        long until = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < until && receiver.distinct(path) < rows) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /**
     * The rows of one phase: id → the time each was scheduled to be inserted (epoch ms; latency is measured from
     * here, so a generator that falls behind reports its own lag instead of hiding it) and the p99 of commit −
     * scheduled (the generator's own lag).
     */
    private record Inserted(Map<String, Long> scheduled, long lagP99) {
    }

    /** Inserts {@code rate} rows per second for {@code seconds} ({@value #WRITERS} paced writers). */
    private static Inserted insert(PostgresDatabase pg, int rate, int seconds) throws Exception {
        Map<String, Long> scheduled = new ConcurrentHashMap<>();
        List<Long> lags = java.util.Collections.synchronizedList(new ArrayList<>());
        int writers = WRITERS;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) * writers / rate;
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            done.add(pool.submit(() -> {
                try (Connection c = pg.connection()) {
                    int count = rate * seconds / writers;
                    for (int i = 0; i < count; i++) {
                        long offset = writer * (intervalNanos / writers) + i * intervalNanos;
                        long wait = start + offset - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        String id = UUID.randomUUID().toString();
                        long due = startMillis + TimeUnit.NANOSECONDS.toMillis(offset);
                        insertRow(c, id, writer + WRITERS * (i % (ENTITIES / WRITERS)));
                        scheduled.put(id, due);
                        lags.add(Math.max(0, System.currentTimeMillis() - due));
                    }
                }
                return null;
            }));
        }
        for (var f : done) {
            f.get();
        }
        pool.shutdown();
        double took = (System.nanoTime() - start) / 1e9;
        System.err.printf(Locale.ROOT, "inserted %d rows in %.1f s (%.0f rows/s)%n", scheduled.size(), took,
                scheduled.size() / took);
        List<Long> sorted = new ArrayList<>(lags);
        sorted.sort(null);
        return new Inserted(scheduled, Receiver.pct(sorted, 0.99));
    }

    /** One row of entity {@code entity} (its writer's own). */
    private static void insertRow(Connection c, String id, int entity) throws Exception {
        String json = ("{\"id\":\"%s\",\"eventType\":\"entityUpdated\",\"entityType\":\"table\","
                + "\"entityId\":\"%s\",\"entityFullyQualifiedName\":\"svc.db.schema.t%d\",\"userName\":\"bench\","
                + "\"timestamp\":%d}").formatted(id, UUID.nameUUIDFromBytes(("e" + entity).getBytes()), entity,
                System.currentTimeMillis());
        try (PreparedStatement s = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            s.setString(1, json);
            s.executeUpdate();
        }
    }

    /** The changestream phase: latency, where it went, throughput (measured before the baseline phase starts). */
    private static String changestreamReport(int rate, int seconds, int subscriptions, Stats alerts,
                                             Inserted rows, Receiver receiver, Map<String, Long> onTopic) {
        Map<String, Long> committed = rows.scheduled();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-38s %9s %6s %6s %8s %8s %8s %8s%n", "e2e (" + rate + " rows/s x "
                + subscriptions + " subs, " + seconds + " s)", "delivered", "lost", "dupes", "p50 ms", "p95 ms",
                "p99 ms", "max ms"));
        out.append(alerts.line("changestream (scheduled -> received)"));
        out.append(String.format(Locale.ROOT, "  the generator's own lag (commit - scheduled) p99 %d ms%n",
                rows.lagP99()));
        List<Long> toCapture = new ArrayList<>();
        List<Long> captureToReceived = new ArrayList<>();
        Map<String, Long> got = receiver.firstByEvent("/alerts");
        receiver.captured.forEach((id, capturedAt) -> {
            Long commit = committed.get(id);
            Long at = got.get(id);
            if (commit != null && at != null) {
                toCapture.add(capturedAt - commit);
                captureToReceived.add(at - capturedAt);
            }
        });
        List<Long> toTopic = new ArrayList<>();
        onTopic.forEach((id, seenAt) -> {
            Long commit = committed.get(id);
            if (commit != null) {
                toTopic.add(seenAt - commit);
            }
        });
        toTopic.sort(null);
        long firstCommit = committed.values().stream().mapToLong(Long::longValue).min().orElse(0);
        long lastReceived = got.values().stream().mapToLong(Long::longValue).max().orElse(firstCommit);
        toCapture.sort(null);
        captureToReceived.sort(null);
        out.append(String.format(Locale.ROOT, "  of which scheduled -> captured p50 %d / p99 %d ms, captured -> received"
                + " p50 %d / p99 %d ms%n", Receiver.pct(toCapture, 0.5), Receiver.pct(toCapture, 0.99),
                Receiver.pct(captureToReceived, 0.5), Receiver.pct(captureToReceived, 0.99)));
        out.append(String.format(Locale.ROOT, "  scheduled -> readable on changes (plain consumer) p50 %d / p99 %d ms; "
                + "alert throughput %.0f deliveries/s (first row to last receive)%n", Receiver.pct(toTopic, 0.5),
                Receiver.pct(toTopic, 0.99), alerts.delivered * 1000.0 / Math.max(1, lastReceived - firstCommit)));
        return out.toString();
    }

    /** The baseline phase (its own rows, after the changestream phase) and the RESULT line. */
    private static String baselineReport(int rate, int subscriptions, int pollSeconds, Cell cell, Stats baseline) {
        Stats alerts = cell.stats();
        StringBuilder out = new StringBuilder();
        out.append(baseline.line("platform poll every " + pollSeconds + " s (own phase)"));
        out.append(String.format(Locale.ROOT, "p99 baseline/changestream %.1fx%n",
                baseline.p99() / (double) Math.max(1, alerts.p99())));
        out.append(String.format(Locale.ROOT, "RESULT {\"scenario\":\"e2e\",\"rate\":%d,\"subscriptions\":%d,"
                        + "\"p50_ms\":%d,\"p95_ms\":%d,\"p99_ms\":%d,\"baseline_p99_ms\":%d,\"delivered\":%d,"
                        + "\"duplicates\":%d,\"lost\":%d,\"baseline_lost\":%d,\"dead_lettered\":%d,\"retrying\":%d,"
                        + "\"generator_lag_p99_ms\":%d,\"balanced\":%b}%n", rate, subscriptions, alerts.p50(),
                alerts.p95(), alerts.p99(), baseline.p99(), alerts.delivered(), alerts.duplicates(), alerts.lost(),
                baseline.lost(), cell.deadLettered(), cell.retrying(), cell.generatorLagP99(), cell.balanced()));
        return out.toString();
    }

    /** A sweep's table (one row a cell) and its RESULT line. */
    private static String sweepReport(int seconds, List<Cell> cells) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%nsweep, %d s per cell, latency from each "
                + "row's scheduled insert time%n%8s %5s %8s %8s %8s %9s %6s %8s%n", seconds, "rows/s", "subs",
                "p50 ms", "p95 ms", "p99 ms", "delivered", "dupes", "ledger"));
        for (Cell c : cells) {
            out.append(String.format(Locale.ROOT, "%8d %5d %8d %8d %8d %9d %6d %8s%n", c.rate(), c.subscriptions(),
                    c.stats().p50(), c.stats().p95(), c.stats().p99(), c.stats().delivered(),
                    c.stats().duplicates(), c.balanced() ? "balanced" : "VOID"));
        }
        out.append("RESULT {\"scenario\":\"e2e\",\"sweep\":true,\"seconds\":").append(seconds)
                .append(",\"balanced\":").append(cells.stream().allMatch(Cell::balanced)).append(",\"cells\":[")
                .append(String.join(",", cells.stream().map(Cell::json).toList())).append("]}")
                .append(System.lineSeparator());
        return out.toString();
    }

    /** Latency statistics of one path. */
    private record Stats(String path, long delivered, long lost, long duplicates, long p50, long p95, long p99,
                         long max) {
        String line(String label) {
            return String.format(Locale.ROOT, "%-38s %9d %6d %6d %8d %8d %8d %8d%n", label, delivered, lost,
                    duplicates, p50, p95, p99, max);
        }
    }

    /** A plain consumer of {@code changes}: when each event became readable on the topic. */
    private static final class TopicProbe implements AutoCloseable {
        private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("\"id\":\"([^\"]+)\"");
        final Map<String, Long> seen = new ConcurrentHashMap<>();
        private final Thread thread;
        private volatile boolean running = true;

        TopicProbe(String bootstrap, String topic) {
            org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer =
                    new org.apache.kafka.clients.consumer.KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                            "group.id", "bench-e2e-probe", "auto.offset.reset", "latest"),
                            new org.apache.kafka.common.serialization.StringDeserializer(),
                            new org.apache.kafka.common.serialization.StringDeserializer());
            consumer.subscribe(List.of(topic));
            consumer.poll(Duration.ofSeconds(5)); // join before the measured rows
            thread = new Thread(() -> {
                try (consumer) {
                    while (running) {
                        for (var r : consumer.poll(Duration.ofMillis(100))) {
                            long now = System.currentTimeMillis();
                            java.util.regex.Matcher m = ID.matcher(r.value());
                            if (m.find()) {
                                seen.putIfAbsent(m.group(1), now);
                            }
                        }
                    }
                }
            }, "topic-probe");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(5_000);
        }
    }

    /** The platform's poll: every {@code pollSeconds}, read every new row by offset and post each one. */
    private static final class Baseline {
        static volatile long startAfter;
        private final PostgresDatabase pg;
        private final URI endpoint;
        private final int pollSeconds;
        private final HttpClient http = HttpClient.newHttpClient();
        private final Thread thread;
        private volatile boolean running = true;

        Baseline(PostgresDatabase pg, String endpoint, int pollSeconds) {
            this.pg = pg;
            this.endpoint = URI.create(endpoint);
            this.pollSeconds = pollSeconds;
            this.thread = new Thread(this::loop, "baseline-poller");
            this.thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.interrupt();
            thread.join(5_000);
        }

        private void loop() {
            long offset = startAfter;
            try (Connection c = pg.connection()) {
                while (running) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(pollSeconds));
                    try (PreparedStatement s = c.prepareStatement("SELECT \"offset\", json ->> 'id' FROM change_event"
                            + " WHERE \"offset\" > ? ORDER BY \"offset\"")) {
                        s.setLong(1, offset);
                        try (ResultSet rs = s.executeQuery()) {
                            while (rs.next() && running) {
                                offset = rs.getLong(1);
                                http.send(HttpRequest.newBuilder(endpoint).header("Idempotency-Key",
                                                "baseline:" + rs.getString(2))
                                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                                        HttpResponse.BodyHandlers.discarding());
                            }
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                if (running) {
                    System.err.println("baseline poller failed: " + e);
                }
            }
        }
    }

    /** The local webhook receiver: first receive time per (path, Idempotency-Key: one pair) and every hit. */
    private static final class Receiver {
        private final HttpServer server;
        private final ExecutorService pool = Executors.newFixedThreadPool(64);
        final Map<String, Map<String, Long>> first = new ConcurrentHashMap<>();
        private final Map<String, AtomicLong> hits = new ConcurrentHashMap<>();
        private static final java.util.regex.Pattern CAPTURE =
                java.util.regex.Pattern.compile("\"captureTimeMs\":(\\d+)");
        /** Event id → when the connector read it from the log (changestream path only). */
        final Map<String, Long> captured = new ConcurrentHashMap<>();

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
            server.setExecutor(pool);
            server.createContext("/", exchange -> {
                long now = System.currentTimeMillis();
                byte[] body = exchange.getRequestBody().readAllBytes();
                String path = exchange.getRequestURI().getPath();
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                if (key != null) {
                    String eventId = key.substring(key.indexOf(':') + 1);
                    java.util.regex.Matcher m = CAPTURE.matcher(new String(body,
                            java.nio.charset.StandardCharsets.UTF_8));
                    if (m.find()) {
                        captured.putIfAbsent(eventId, Long.parseLong(m.group(1)));
                    }
                    first.computeIfAbsent(path, p -> new ConcurrentHashMap<>()).putIfAbsent(key, now);
                    hits.computeIfAbsent(path, p -> new AtomicLong()).incrementAndGet();
                }
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        long distinct(String path) {
            return first.getOrDefault(path, Map.of()).size();
        }

        void reset() {
            captured.clear();
            first.clear();
            hits.clear();
        }

        /** Event id → the first time any of its pairs arrived. */
        Map<String, Long> firstByEvent(String path) {
            Map<String, Long> out = new HashMap<>();
            first.getOrDefault(path, Map.of()).forEach((key, at) -> out.merge(key.substring(key.indexOf(':') + 1),
                    at, Math::min));
            return out;
        }

        /**
         * Per pair: its row's scheduled (or commit) time → its first arrival; lost = pairs expected
         * ({@code pairsPerRow}) − arrived.
         */
        Stats stats(String path, Map<String, Long> committed, int pairsPerRow) {
            Map<String, Long> got = first.getOrDefault(path, Map.of());
            List<Long> latencies = new ArrayList<>();
            for (Map.Entry<String, Long> e : got.entrySet()) {
                Long commit = committed.get(e.getKey().substring(e.getKey().indexOf(':') + 1));
                if (commit != null) {
                    latencies.add(Math.max(0, e.getValue() - commit));
                }
            }
            long lost = (long) committed.size() * pairsPerRow - latencies.size();
            latencies.sort(null);
            long delivered = latencies.size();
            long duplicates = hits.getOrDefault(path, new AtomicLong()).get() - got.size();
            return new Stats(path, delivered, lost, duplicates, pct(latencies, 0.50), pct(latencies, 0.95),
                    pct(latencies, 0.99), latencies.isEmpty() ? -1 : latencies.get(latencies.size() - 1));
        }

        static long pct(List<Long> sorted, double q) {
            if (sorted.isEmpty()) {
                return -1;
            }
            return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
        }

        void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
