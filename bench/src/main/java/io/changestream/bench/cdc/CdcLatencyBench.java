package io.changestream.bench.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.serde.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code ops/bench cdc-latency}: inserts {@code rate} change_event rows per second (one transaction each) for
 * {@code seconds} into a real PostgreSQL (synchronous_commit=on), and measures, for the same rows, commit →
 * record-in-Kafka latency of the cdc-connector (in this JVM, poll.interval.ms=10, offsets in Kafka, acks=all), and
 * commit → seen latency of the platform's polling reader ({@code SELECT … WHERE "offset" > ? ORDER BY "offset"
 * LIMIT 100} every pollInterval, draining every full page in the same tick — the most favourable reading of the
 * baseline) at 10 s (the platform's default) and 1 s. Prints a table and, last, {@code RESULT {...}}.
 *
 * <p>Arguments: {@code [rate] [seconds] [writers] [rowsPerTx]} (default 1000 30, one writer connection per started
 * 1,000 transactions/s — a single connection committing one transaction at a time cannot keep much more than that
 * schedule here, so at 5,000 rows/s in single-row transactions five connections share it, each on its own slot of
 * the schedule — and one row per transaction; {@code writers} 0 = that default). With {@code rowsPerTx} above 1
 * each transaction inserts that many rows (the platform writes change events inside entity transactions) and every
 * row's latency counts from its transaction's commit.
 */
public final class CdcLatencyBench {

    private static final String SELECT = "SELECT \"offset\", json ->> 'id' FROM change_event WHERE \"offset\" > ? "
            + "ORDER BY \"offset\" LIMIT 100";

    /** Seconds of inserts before measuring starts. */
    private static final int WARMUP_SECONDS = 5;

    private final Map<String, Long> committedAt = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);

    private final int writers;
    private final int rowsPerTx;
    private final String loadBefore = loadAverage();

    private CdcLatencyBench(int writers, int rowsPerTx) {
        this.writers = writers;
        this.rowsPerTx = rowsPerTx;
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int rowsPerTx = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        int given = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        int transactionsPerSecond = Math.max(1, rate / Math.max(1, rowsPerTx));
        int writers = given > 0 ? given : Math.max(1, (transactionsPerSecond + 999) / 1_000);
        if (rate < 1 || seconds < 1 || writers < 1 || rowsPerTx < 1 || writers * rowsPerTx > rate) {
            throw new IllegalArgumentException("rate, seconds, writers and rowsPerTx must be >= 1 and writers x "
                    + "rowsPerTx <= rate, were " + rate + ", " + seconds + ", " + writers + ", " + rowsPerTx);
        }
        new CdcLatencyBench(writers, rowsPerTx).run(rate, seconds);
    }

    private void run(int rate, int seconds) throws Exception {
        String table;
        try (KafkaBroker broker = Brokers.start(Map.of());
             PostgresDatabase pg = PostgresDatabase.start()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            Map<String, String> settings = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                    PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), "bench.");
            settings.put("postgres.slot.drop.on.stop", "true");
            settings.put("poll.interval.ms", "10");
            Measured cdc;
            Measured poll10;
            Measured poll1;
            int inserted;
            try (CdcConnector connector = new CdcConnector(CdcConfig.fromMap(settings)).start()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (!connector.streaming() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                if (!connector.streaming()) {
                    throw new IllegalStateException("the connector did not start streaming within 120 s");
                }
                Measured kafka = new Measured("cdc-connector (Debezium → Kafka)");
                Thread consumer = thread("bench-consumer", () -> consume(broker, kafka));
                Measured slow = new Measured("polling, pollInterval 10 s");
                Measured fast = new Measured("polling, pollInterval 1 s");
                Thread poller10 = thread("bench-poll-10s", () -> poll(pg, Duration.ofSeconds(10), slow));
                Thread poller1 = thread("bench-poll-1s", () -> poll(pg, Duration.ofSeconds(1), fast));
                // warm-up (JIT, first batches, producer and consumer connections): not measured
                insert(pg, rate, WARMUP_SECONDS, false);
                inserted = insert(pg, rate, seconds, true);
                // let every reader see every row: the 10 s poller needs up to one more interval
                long drain = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
                while (System.nanoTime() < drain
                        && (kafka.count() < inserted || slow.count() < inserted || fast.count() < inserted)) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
                running.set(false);
                for (Thread t : List.of(consumer, poller10, poller1)) {
                    t.join(15_000);
                }
                cdc = kafka;
                poll10 = slow;
                poll1 = fast;
            }
            // the achieved rate: a loaded machine may not keep the schedule
            long first = committedAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
            long last = committedAt.values().stream().mapToLong(Long::longValue).max().orElse(1);
            double actualRate = inserted / Math.max(1e-9, (last - first) / 1e9);
            table = report(rate, seconds, inserted, actualRate, cdc, poll10, poll1);
        }
        System.out.print(table);
        System.out.flush();
        // Debezium and Jetty leave non-daemon threads; their shutdown logs must not follow the RESULT line
        Runtime.getRuntime().halt(0);
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Transactions of {@link #rowsPerTx} rows at a fixed schedule of {@code rate} rows/s, split over {@link #writers}
     * connections (writer w takes transaction slots w, w + writers, …); returns the rows inserted (measured ones are
     * remembered with their transaction's commit time).
     */
    private int insert(PostgresDatabase pg, int rate, int seconds, boolean measured) throws Exception {
        int total = rate * seconds / rowsPerTx * rowsPerTx;
        long start = System.nanoTime();
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            for (int w = 0; w < writers; w++) {
                int writer = w;
                done.add(pool.submit(() -> {
                    insertSlots(pg, rate, total, writer, start, measured);
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return total;
    }

    private void insertSlots(PostgresDatabase pg, int rate, int total, int writer, long start, boolean measured)
            throws Exception {
        long intervalNanos = TimeUnit.SECONDS.toNanos(1) / rate;
        List<String> entities = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            entities.add(UUID.randomUUID().toString());
        }
        String[] ids = new String[rowsPerTx];
        try (Connection c = pg.connection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            c.setAutoCommit(rowsPerTx == 1);
            for (int first = writer * rowsPerTx; first < total; first += writers * rowsPerTx) {
                long due = start + first * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                for (int r = 0; r < rowsPerTx; r++) {
                    int i = first + r;
                    ids[r] = UUID.randomUUID().toString();
                    insert.setString(1, "{\"id\":\"" + ids[r] + "\",\"eventType\":\"entityUpdated\","
                            + "\"entityType\":\"table\",\"entityId\":\"" + entities.get(i % entities.size())
                            + "\",\"userName\":\"bench\",\"timestamp\":" + System.currentTimeMillis() + "}");
                    if (rowsPerTx == 1) {
                        insert.executeUpdate();
                    } else {
                        insert.addBatch();
                    }
                }
                if (rowsPerTx > 1) {
                    insert.executeBatch();
                    c.commit();
                }
                if (measured) {
                    long committed = System.nanoTime();
                    for (String id : ids) {
                        committedAt.put(id, committed);
                    }
                }
            }
        }
    }

    private void consume(KafkaBroker broker, Measured measured) {
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = consumer.partitionsFor("bench.changes", Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (running.get()) {
                for (var record : consumer.poll(Duration.ofMillis(5))) {
                    long now = System.nanoTime();
                    JsonNode value = Json.mapper().readTree(record.value());
                    measured.seen(value.path("id").asText(), now);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("bench consumer failed", e);
        }
    }

    private void poll(PostgresDatabase pg, Duration interval, Measured measured) {
        long cursor = 0;
        try (Connection c = pg.connection(); PreparedStatement select = c.prepareStatement(SELECT)) {
            long next = System.nanoTime();
            while (running.get()) {
                int page;
                do {
                    select.setLong(1, cursor);
                    page = 0;
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            cursor = rows.getLong(1);
                            measured.seen(rows.getString(2), System.nanoTime());
                            page++;
                        }
                    }
                } while (page == 100);
                next += interval.toNanos();
                while (running.get() && System.nanoTime() < next) {
                    LockSupport.parkNanos(Math.min(next - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(100)));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("bench poller failed", e);
        }
    }

    private String report(int rate, int seconds, int inserted, double actualRate, Measured cdc, Measured poll10,
                          Measured poll1) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%ncdc-latency: %d rows, target %d rows/s for %d s, achieved %.0f "
                + "rows/s (%d row(s) per transaction, %d writer connection(s), PostgreSQL synchronous_commit=on), "
                + "after %d s of unmeasured warm-up; host load average (1/5/15 min) before the run %s, at its end "
                + "%s%n", inserted, rate, seconds, actualRate, rowsPerTx, writers, WARMUP_SECONDS, loadBefore,
                loadAverage()));
        out.append(String.format(Locale.ROOT, "%-36s %8s %10s %10s %10s%n", "reader", "rows", "p50 ms", "p99 ms",
                "max ms"));
        for (Measured m : List.of(cdc, poll1, poll10)) {
            double[] l = m.latenciesMs();
            out.append(String.format(Locale.ROOT, "%-36s %8d %10.1f %10.1f %10.1f%n", m.name, l.length,
                    percentile(l, 50), percentile(l, 99), l.length == 0 ? Double.NaN : l[l.length - 1]));
        }
        System.err.println("cdc-connector worst latency per second of the run (ms): " + cdc.worstPerSecond());
        double p50 = percentile(cdc.latenciesMs(), 50);
        double p99 = percentile(cdc.latenciesMs(), 99);
        double baselineP99 = percentile(poll10.latenciesMs(), 99);
        out.append(String.format(Locale.ROOT, "RESULT {\"scenario\":\"cdc-latency\",\"rate\":%.1f,\"rows\":%d,"
                        + "\"seen\":%d,\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"baseline_p99_ms\":%.1f,"
                        + "\"baseline_1s_p99_ms\":%.1f,\"ratio\":%.1f,\"target_rate\":%d,\"writers\":%d,"
                        + "\"rows_per_tx\":%d,"
                        + "\"load_before\":\"%s\",\"load_after\":\"%s\"}%n", actualRate, inserted, cdc.count(), p50,
                p99, baselineP99, percentile(poll1.latenciesMs(), 99), baselineP99 / p99, rate, writers, rowsPerTx,
                loadBefore, loadAverage()));
        return out.toString();
    }

    /** The host's 1/5/15-minute load average (Linux), so a figure taken under load says so. */
    private static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static double percentile(double[] sorted, int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Commit → seen latency of one reader; the first sighting of each event id counts. */
    private final class Measured {
        private final String name;
        private final Map<String, Long> seenAt = new ConcurrentHashMap<>();

        Measured(String name) {
            this.name = name;
        }

        void seen(String id, long nanos) {
            seenAt.putIfAbsent(id, nanos);
        }

        int count() {
            return (int) seenAt.keySet().stream().filter(committedAt::containsKey).count();
        }

        /** The largest latency (ms) among rows committed in each second of the run, in commit order. */
        List<Long> worstPerSecond() {
            long first = committedAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
            Map<Long, Long> worst = new java.util.TreeMap<>();
            seenAt.forEach((id, seen) -> {
                Long committed = committedAt.get(id);
                if (committed != null) {
                    worst.merge((committed - first) / 1_000_000_000L, (seen - committed) / 1_000_000, Math::max);
                }
            });
            return new ArrayList<>(worst.values());
        }

        double[] latenciesMs() {
            double[] l = seenAt.entrySet().stream().filter(e -> committedAt.containsKey(e.getKey()))
                    .mapToDouble(e -> (e.getValue() - committedAt.get(e.getKey())) / 1e6).toArray();
            Arrays.sort(l);
            return l;
        }
    }
}
