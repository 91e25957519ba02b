package io.changestream.bench.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * {@code ops/bench cdc-drain}: how fast the cdc-connector drains a backlog, against PostgreSQL's own decoder reading
 * the same slot contents. A real PostgreSQL (embedded, {@code synchronous_commit=on}), a KRaft broker in this JVM and
 * the connector as a child JVM ({@link CdcDrainChild} around the unchanged {@code CdcMain}, so its process CPU and
 * allocation are its own):
 * <ol>
 *   <li>the connector starts once (creates its slot and publication, streams), a second pgoutput slot is created
 *       for the baseline, and the connector is stopped (SIGTERM);</li>
 *   <li>{@code rows} realistic change_event rows ({@link ChangeEventRows}) are inserted in transactions of
 *       {@code txRows};</li>
 *   <li>baseline: the JDBC driver's replication stream reads the baseline slot with pgoutput (the publication the
 *       connector uses) and discards every message, until it has seen every insert — the cost of reading the log;</li>
 *   <li>the connector starts again and drains its slot; the drain is timed from the first to the last record on
 *       {@code changes} (end offsets polled every 20 ms), its CPU and allocation are the child's over that interval;
 *       then every record is read back: each event id once, per-entity order by source offset.</li>
 * </ol>
 * Prints a table and, last, {@code RESULT {...}}. Arguments: {@code [rows] [txRows]} (default 200000 1000).
 * {@code CDC_DRAIN_CHILD_OPTS}: extra JVM options of the connector process (e.g. a flight recording).
 */
public final class CdcDrainBench {

    private static final String NAMESPACE = "bench.";
    private static final String BASELINE_SLOT = "bench_baseline";
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final Path work;
    private final String loadBefore = loadAverage();

    private CdcDrainBench(Path work) {
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int txRows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        if (rows < 1 || txRows < 1) {
            throw new IllegalArgumentException("rows and txRows must be >= 1, were " + rows + ", " + txRows);
        }
        Path work = Files.createTempDirectory("cdc-drain");
        new CdcDrainBench(work).run(rows, txRows);
    }

    private void run(int rows, int txRows) throws Exception {
        String table;
        try (KafkaBroker broker = Brokers.start(Map.of());
             PostgresDatabase pg = PostgresDatabase.start()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            Path config = connectorConfig(broker, pg);
            int port = Integer.parseInt(readProperty(config, "http.port"));

            // 1. the connector's slot and publication exist, a baseline slot beside it, the connector stopped
            Process first = startConnector(config, work.resolve("samples-1.txt"), work.resolve("connector-1.log"));
            awaitReady(first, port, work.resolve("connector-1.log"));
            pg.execute("SELECT pg_create_logical_replication_slot('" + BASELINE_SLOT + "', 'pgoutput')");
            stop(first);

            // 2. the backlog
            long insertStart = System.nanoTime();
            insert(pg, rows, txRows);
            double insertSeconds = (System.nanoTime() - insertStart) / 1e9;
            RowSizes sizes = RowSizes.of(pg);

            // 3. baseline: the database's own decoder, read and discarded
            Drain baseline = readBaseline(pg, rows);

            // 4. the connector drains its slot
            Path samples = work.resolve("samples-2.txt");
            Path log = work.resolve("connector-2.log");
            long launched = System.nanoTime();
            Process second = startConnector(config, samples, log);
            Drain cdc;
            Verified verified;
            try {
                cdc = awaitDrain(broker, second, rows, launched, samples, log);
                verified = verify(broker, rows);
            } finally {
                stop(second);
            }
            table = report(rows, txRows, insertSeconds, sizes, baseline, cdc, verified);
        }
        System.out.print(table);
        System.out.flush();
        // the broker's and the database's shutdown logs must not follow the RESULT line
        Runtime.getRuntime().halt(0);
    }

    private Path connectorConfig(KafkaBroker broker, PostgresDatabase pg) throws IOException {
        Map<String, String> settings = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), NAMESPACE);
        try (ServerSocket socket = new ServerSocket(0)) {
            settings.put("http.port", Integer.toString(socket.getLocalPort()));
        }
        settings.put("instance.id", "cdc-drain");
        String overrides = System.getenv("CDC_DRAIN_SETTINGS");
        if (overrides != null && !overrides.isBlank()) {
            // k=v,k=v: connector settings to compare (e.g. kafka.compression.type=lz4)
            for (String pair : overrides.split(",")) {
                int eq = pair.indexOf('=');
                settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        Properties p = new Properties();
        p.putAll(settings);
        Path file = work.resolve("cdc.properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            p.store(out, "ops/bench cdc-drain");
        }
        return file;
    }

    private static String readProperty(Path file, String key) throws IOException {
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p.getProperty(key);
    }

    private static Process startConnector(Path config, Path samples, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        String opts = System.getenv("CDC_DRAIN_CHILD_OPTS");
        if (opts != null && !opts.isBlank()) {
            command.addAll(List.of(opts.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CdcDrainChild.class.getName(),
                config.toString(), samples.toString()));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitReady(Process process, int port, Path log) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the connector exited with " + process.exitValue() + ":\n" + tail(log));
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
        throw new IllegalStateException("the connector was not ready within 120 s:\n" + tail(log));
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void insert(PostgresDatabase pg, int rows, int txRows) throws Exception {
        ChangeEventRows generator = new ChangeEventRows(24, 1_000);
        long timestamp = 1_764_579_600_000L;
        try (Connection c = pg.connection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < rows; i++) {
                insert.setString(1, generator.next(timestamp + i));
                insert.addBatch();
                if ((i + 1) % txRows == 0 || i == rows - 1) {
                    insert.executeBatch();
                    c.commit();
                }
            }
        }
    }

    /** Reads the baseline slot with pgoutput and discards every message until {@code rows} inserts were seen. */
    private static Drain readBaseline(PostgresDatabase pg, int rows) throws Exception {
        Properties props = new Properties();
        PGProperty.USER.set(props, PostgresDatabase.USER);
        PGProperty.PASSWORD.set(props, PostgresDatabase.PASSWORD);
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        String url = "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/" + PostgresDatabase.DATABASE;
        var threads = ManagementFactory.getThreadMXBean();
        try (Connection c = DriverManager.getConnection(url, props)) {
            PGConnection replication = c.unwrap(PGConnection.class);
            long cpuStart = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            long first = 0;
            long bytes = 0;
            int inserts = 0;
            try (PGReplicationStream stream = replication.getReplicationAPI().replicationStream().logical()
                    .withSlotName(BASELINE_SLOT).withSlotOption("proto_version", "1")
                    .withSlotOption("publication_names", "changestream_cdc").start()) {
                while (inserts < rows) {
                    ByteBuffer message = stream.read();
                    if (first == 0) {
                        first = System.nanoTime();
                    }
                    bytes += message.remaining();
                    if (message.get(message.position()) == 'I') {
                        inserts++;
                    }
                }
            }
            long end = System.nanoTime();
            long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
            return new Drain(inserts, (end - first) / 1e9, (first - start) / 1e9, cpu, -1, bytes, null);
        }
    }

    /** Polls the end offsets of {@code changes} until {@code rows} records are there; reads CPU off the samples. */
    private static Drain awaitDrain(KafkaBroker broker, Process process, int rows, long launched, Path samples,
                                    Path log) throws Exception {
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = partitions(consumer);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(300, rows / 100));
            long firstAt = 0;
            long countAtFirst = 0;
            long midAt = 0;
            long countAtMid = 0;
            long count = 0;
            while (count < rows) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the connector exited with " + process.exitValue() + ":\n"
                            + tail(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + count + " of " + rows + " rows drained:\n" + tail(log));
                }
                count = consumer.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
                long now = System.nanoTime();
                if (count > 0 && firstAt == 0) {
                    firstAt = now;
                    countAtFirst = count;
                }
                if (count >= rows / 2 && midAt == 0) {
                    midAt = now;
                    countAtMid = count;
                }
                if (count < rows) {
                    LockSupport.parkNanos(POLL_NANOS);
                }
            }
            long lastAt = System.nanoTime();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // one more sample after the last record
            long[] atFirst = sampleAt(samples, firstAt);
            long[] atMid = sampleAt(samples, midAt);
            long[] atLast = sampleAt(samples, lastAt);
            Drain secondHalf = new Drain(rows - countAtMid, (lastAt - midAt) / 1e9, 0, atLast[1] - atMid[1],
                    atLast[2] - atMid[2], -1, null);
            return new Drain(rows - countAtFirst, (lastAt - firstAt) / 1e9, (firstAt - launched) / 1e9,
                    atLast[1] - atFirst[1], atLast[2] - atFirst[2], -1, secondHalf);
        }
    }

    private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer) {
        return consumer.partitionsFor(NAMESPACE + "changes", Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    }

    /** The last sample taken at or before {@code nanos}: {nanoTime, processCpuNanos, allocatedBytes}. */
    private static long[] sampleAt(Path samples, long nanos) throws IOException {
        long[] best = null;
        for (String line : Files.readAllLines(samples, StandardCharsets.UTF_8)) {
            String[] f = line.trim().split(" ");
            if (f.length != 3) {
                continue;
            }
            long[] sample = {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
            if (best == null || sample[0] <= nanos) {
                best = sample;
            }
            if (sample[0] > nanos) {
                break;
            }
        }
        if (best == null) {
            throw new IllegalStateException("the connector process wrote no samples to " + samples);
        }
        return best;
    }

    /** Reads every record of {@code changes} back: distinct event ids, per-entity order, value bytes. */
    private static Verified verify(KafkaBroker broker, int rows) {
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
        Set<String> ids = new HashSet<>();
        Map<String, Long> lastOffsetPerEntity = new HashMap<>();
        long records = 0;
        long valueBytes = 0;
        long orderViolations = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = partitions(consumer);
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long end = consumer.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
            while (records < end) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    records++;
                    valueBytes += r.serializedValueSize();
                    JsonNode value = Json.mapper().readTree(r.value());
                    ids.add(value.path("id").asText());
                    long offset = value.path("source").path("sourceOffset").asLong();
                    Long previous = lastOffsetPerEntity.put(r.key(), offset);
                    if (previous != null && previous >= offset) {
                        orderViolations++;
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("a record on changes is not JSON", e);
        }
        return new Verified(records, ids.size(), orderViolations, valueBytes);
    }

    private String report(int rows, int txRows, double insertSeconds, RowSizes sizes, Drain baseline, Drain cdc,
                          Verified verified) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%ncdc-drain: %d change_event rows in transactions of %d (inserted in "
                        + "%.1f s with the connector stopped); json::text bytes p10 %d, p50 %d, p90 %d, max %d; "
                        + "host load average (1/5/15 min) before the run %s, at its end %s%n", rows, txRows,
                insertSeconds, sizes.p10, sizes.p50, sizes.p90, sizes.max, loadBefore, loadAverage()));
        out.append(String.format(Locale.ROOT, "%-52s %10s %10s %12s %12s %12s%n", "reader", "rows", "rows/s",
                "CPU us/row", "alloc KB/row", "MB/s (rows)"));
        double baselineRate = baseline.rows / baseline.seconds;
        double cdcRate = cdc.rows / cdc.seconds;
        out.append(String.format(Locale.ROOT, "%-52s %10d %10.0f %12.1f %12s %12.1f%n",
                "pgoutput via the JDBC replication stream, discarded", baseline.rows, baselineRate,
                baseline.cpuNanos / 1e3 / baseline.rows, "-", sizes.mean * baselineRate / 1e6));
        out.append(String.format(Locale.ROOT, "%-52s %10d %10.0f %12.1f %12.1f %12.1f%n",
                "cdc-connector (Debezium embedded -> Kafka, acks=all)", cdc.rows, cdcRate,
                cdc.cpuNanos / 1e3 / cdc.rows, cdc.allocatedBytes / 1024.0 / cdc.rows, sizes.mean * cdcRate / 1e6));
        Drain half = cdc.secondHalf;
        out.append(String.format(Locale.ROOT, "%-52s %10d %10.0f %12.1f %12.1f %12.1f%n",
                "  the same, second half of the rows", half.rows, half.rows / half.seconds,
                half.cpuNanos / 1e3 / half.rows, half.allocatedBytes / 1024.0 / half.rows,
                sizes.mean * half.rows / half.seconds / 1e6));
        out.append(String.format(Locale.ROOT, "connector: first record %.1f s after launch; read back %d records, %d "
                        + "distinct event ids of %d rows, %d per-entity order violations, %.0f value bytes per record; "
                        + "baseline received %.1f MB of pgoutput%n", cdc.startSeconds, verified.records,
                verified.distinctIds, rows, verified.orderViolations,
                verified.records == 0 ? 0.0 : (double) verified.valueBytes / verified.records,
                baseline.bytes / 1e6));
        out.append(String.format(Locale.ROOT, "RESULT {\"scenario\":\"cdc-drain\",\"rows\":%d,\"tx_rows\":%d,"
                        + "\"rows_per_sec\":%.0f,\"cpu_us_per_row\":%.1f,\"alloc_kb_per_row\":%.1f,"
                        + "\"bytes_per_sec\":%.0f,\"baseline_rows_per_sec\":%.0f,\"baseline_cpu_us_per_row\":%.1f,"
                        + "\"ratio\":%.2f,\"second_half_rows_per_sec\":%.0f,\"second_half_cpu_us_per_row\":%.1f,"
                        + "\"second_half_alloc_kb_per_row\":%.1f,\"row_bytes_p50\":%d,\"row_bytes_p90\":%d,"
                        + "\"row_bytes_max\":%d,"
                        + "\"distinct_ids\":%d,\"order_violations\":%d,\"load_before\":\"%s\",\"load_after\":\"%s\"}%n",
                rows, txRows, cdcRate, cdc.cpuNanos / 1e3 / cdc.rows, cdc.allocatedBytes / 1024.0 / cdc.rows,
                sizes.mean * cdcRate, baselineRate, baseline.cpuNanos / 1e3 / baseline.rows, cdcRate / baselineRate,
                half.rows / half.seconds, half.cpuNanos / 1e3 / half.rows, half.allocatedBytes / 1024.0 / half.rows,
                sizes.p50, sizes.p90, sizes.max, verified.distinctIds, verified.orderViolations, loadBefore,
                loadAverage()));
        return out.toString();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** The host's 1/5/15-minute load average (Linux), so a figure taken under load says so. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /**
     * One reader's drain: rows timed, seconds, start-up seconds, CPU and allocation over the drain, bytes read, and
     * (the connector's) the same over the second half of the rows, when the JIT has done most of its work.
     */
    private record Drain(long rows, double seconds, double startSeconds, long cpuNanos, long allocatedBytes,
                         long bytes, Drain secondHalf) {
    }

    private record Verified(long records, long distinctIds, long orderViolations, long valueBytes) {
    }

    /** The distribution of {@code json::text} sizes of the inserted rows, as the database reports them. */
    private record RowSizes(long p10, long p50, long p90, long max, double mean) {
        static RowSizes of(PostgresDatabase pg) throws Exception {
            try (Connection c = pg.connection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT percentile_disc(0.1) WITHIN GROUP (ORDER BY b), "
                         + "percentile_disc(0.5) WITHIN GROUP (ORDER BY b), percentile_disc(0.9) WITHIN GROUP "
                         + "(ORDER BY b), max(b), avg(b) FROM (SELECT octet_length(json::text) AS b FROM change_event) t")) {
                r.next();
                return new RowSizes(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getDouble(5));
            }
        }
    }
}
