package io.changestream.bench.consumer;

import io.changestream.runtime.KeyAssignment;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.LoggerFactory;

/**
 * {@code ops/bench consumer}: pre-fills topics on an in-JVM broker (12 partitions, keys drawn from 10,000 random
 * ids), then, each contender in a fresh group: (1) I/O-bound, 100,000 records, 5 ms of sleep per record: the runtime
 * with 64 lanes (default settings otherwise) vs Confluent Parallel Consumer (KEY ordering, maxConcurrency 64) vs the
 * limit 64 / 5 ms = 12,800/s; (2) no-op, 300,000 records (system property {@code consumer.bench.noopRecords}): the
 * runtime (one consumer thread, {@value #NOOP_LANES} lanes, HASH key assignment) vs a bare poll loop, interleaved,
 * best of 5 rounds ({@code consumer.bench.noopRounds}) after a warm-up round each. Throughput is steady state, first to last record; start-up (group join, first fetch)
 * is shown apart. Prints a table, then the RESULT line.
 */
public final class ConsumerBench {

    static final int RECORDS = 100_000;
    static final int KEYS = 10_000;
    static final int PARTITIONS = 12;
    static final int LANES = 64;
    static final long WORK_MILLIS = 5;
    static final int IO_LIMIT = (int) (LANES * 1000 / WORK_MILLIS);
    static final int NOOP_ROUNDS = Integer.getInteger("consumer.bench.noopRounds", 5);
    static final int NOOP_RECORDS = Integer.getInteger("consumer.bench.noopRecords", 300_000);
    static final int NOOP_LANES = 4;
    /** Lanes of the asynchronous contender: calls, not lanes, are its concurrency. */
    static final int ASYNC_LANES = 8;
    /** No-op events: plain hashing, the setting for cheap processing (decision 0401). */
    static final KeyAssignment NOOP_ASSIGNMENT = KeyAssignment.HASH;

    private ConsumerBench() {
    }

    public static void main(String[] args) throws Exception {
        quiet("io.changestream", "io.confluent", "pl.tlinkowski");
        List<String> table = new ArrayList<>();
        try (KafkaBroker broker = Brokers.start(Map.of())) {
            String topic = "bench-consumer-io";
            String noopTopic = "bench-consumer-noop";
            broker.createTopic(topic, PARTITIONS);
            broker.createTopic(noopTopic, PARTITIONS);
            fill(broker, topic, System.getenv("CONSUMER_BENCH_NOOP_ONLY") != null ? 1_000 : RECORDS);
            fill(broker, noopTopic, NOOP_RECORDS);
            Contenders c = new Contenders(broker.bootstrapServers(), topic, RECORDS);

            // CONSUMER_BENCH_NOOP_ONLY=1: the no-op comparison alone, for iterating on the hot path (I/O rows are 0)
            boolean noopOnly = System.getenv("CONSUMER_BENCH_NOOP_ONLY") != null;
            Contenders.Timing skipped = new Contenders.Timing(0, Duration.ZERO, Duration.ofSeconds(1));
            Contenders.Timing io = noopOnly ? skipped : c.runtime(LANES, 1, WORK_MILLIS, KeyAssignment.LEAST_LOADED);
            Contenders.Timing pc = noopOnly ? skipped : c.parallelConsumer(LANES, WORK_MILLIS);
            Contenders.Timing ioAsync = noopOnly ? skipped : c.runtimeAsync(ASYNC_LANES, LANES, WORK_MILLIS);
            Contenders.Timing ioHash = noopOnly ? skipped : c.runtime(LANES, 1, WORK_MILLIS, KeyAssignment.HASH);

            c = new Contenders(broker.bootstrapServers(), noopTopic, NOOP_RECORDS);
            c.rawPoll();
            c.runtime(NOOP_LANES, 1, 0, NOOP_ASSIGNMENT);
            List<Contenders.Timing> raws = new ArrayList<>();
            List<Contenders.Timing> noops = new ArrayList<>();
            for (int i = 0; i < NOOP_ROUNDS; i++) {
                raws.add(c.rawPoll());
                noops.add(c.runtime(NOOP_LANES, 1, 0, NOOP_ASSIGNMENT));
            }
            Contenders.Timing raw = best(raws);
            Contenders.Timing noop = best(noops);

            table.add(String.format(Locale.ROOT, "%-50s %12s %12s %10s", "contender", "records/s", "startup ms", "vs"));
            table.add(row("I/O: runtime, 64 lanes, 5 ms/record", io, io.perSecond() / IO_LIMIT, "of limit"));
            table.add(row("I/O: Parallel Consumer KEY, 64, 5 ms/record", pc, pc.perSecond() / IO_LIMIT, "of limit"));
            table.add(String.format(Locale.ROOT, "%-50s %12d", "I/O limit: 64 lanes / 5 ms", IO_LIMIT));
            table.add(row("I/O: runtime HASH, 64 lanes, 5 ms/record", ioHash, ioHash.perSecond() / IO_LIMIT,
                    "of limit"));
            table.add(row("I/O: runtime async, 64 calls, 5 ms/record", ioAsync, ioAsync.perSecond() / IO_LIMIT,
                    "of limit"));
            table.add(String.format(Locale.ROOT, "%-50s %12s %12s %9.2fx", "I/O: runtime vs Parallel Consumer", "",
                    "", io.perSecond() / pc.perSecond()));
            table.add(String.format(Locale.ROOT, "%-50s %12s %12s %9.2fx", "I/O: runtime async vs Parallel Consumer",
                    "", "", ioAsync.perSecond() / pc.perSecond()));
            table.add(row("no-op: runtime, " + NOOP_LANES + " lanes, " + NOOP_ASSIGNMENT + ", best of " + NOOP_ROUNDS,
                    noop, noop.perSecond() / raw.perSecond(), "of raw"));
            table.add(row("no-op: bare KafkaConsumer poll loop, best of " + NOOP_ROUNDS, raw, 1.0, "of raw"));
            // CPU per record, median of the rounds: what the wall-clock ratio becomes when other load steals cores
            double rawThread = median(raws, Contenders.Timing::pollThreadCpuPerRecord);
            double noopThread = median(noops, Contenders.Timing::pollThreadCpuPerRecord);
            double rawCpu = median(raws, Contenders.Timing::processCpuPerRecord);
            double noopCpu = median(noops, Contenders.Timing::processCpuPerRecord);
            table.add(String.format(Locale.ROOT, "%-50s %12.0f %12.0f %9.2fx", "no-op CPU ns/record: polling thread"
                    + " (bare, runtime)", rawThread, noopThread, rawThread / noopThread));
            table.add(String.format(Locale.ROOT, "%-50s %12s %12.0f", "no-op CPU ns/record: runtime's lanes", "",
                    median(noops, Contenders.Timing::laneCpuPerRecord)));
            table.add(String.format(Locale.ROOT, "%-50s %12.0f %12.0f %9.2fx", "no-op CPU ns/record: whole JVM"
                    + " (bare, runtime)", rawCpu, noopCpu, rawCpu / noopCpu));
            // the two targets of issue 11 item 4, computed here so the RESULT line carries them
            double noopRatio = noop.perSecond() / raw.perSecond();
            double ioOfLimit = io.perSecond() / IO_LIMIT;
            double ioVsPc = io.perSecond() / pc.perSecond();
            table.add(String.format(Locale.ROOT, "RESULT {\"scenario\":\"consumer\",\"io_per_sec\":%.0f,"
                            + "\"io_hash_per_sec\":%.0f,\"io_async_per_sec\":%.0f,"
                            + "\"io_limit\":%d,\"pc_per_sec\":%.0f,\"noop_per_sec\":%.0f,\"raw_per_sec\":%.0f,"
                            + "\"noop_ratio\":%.3f,\"io_of_limit\":%.3f,\"io_vs_pc\":%.3f,"
                            + "\"io_async_of_limit\":%.3f,\"io_async_vs_pc\":%.3f,"
                            + "\"noop_poll_thread_ns\":%.0f,\"raw_poll_thread_ns\":%.0f,"
                            + "\"noop_cpu_ns\":%.0f,\"raw_cpu_ns\":%.0f}",
                    io.perSecond(), ioHash.perSecond(), ioAsync.perSecond(), IO_LIMIT, pc.perSecond(),
                    noop.perSecond(), raw.perSecond(), noopRatio, ioOfLimit, ioVsPc,
                    ioAsync.perSecond() / IO_LIMIT, ioAsync.perSecond() / pc.perSecond(),
                    noopThread, rawThread, noopCpu, rawCpu));
        }
        System.out.flush();
        table.forEach(System.out::println); // after the broker's shutdown logging: RESULT stays the last line
        System.out.flush();
        System.exit(0); // Parallel Consumer and broker leave non-daemon threads behind
    }

    private static String row(String name, Contenders.Timing t, double ratio, String of) {
        return String.format(Locale.ROOT, "%-50s %12.0f %12d %5.0f%% %s", name, t.perSecond(), t.startup().toMillis(),
                ratio * 100, of);
    }

    /** Contenders log every rebalance at INFO; the table is what matters here. */
    private static void quiet(String... loggers) {
        for (String name : loggers) {
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(name)).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    private static double median(List<Contenders.Timing> timings,
                                 java.util.function.ToDoubleFunction<Contenders.Timing> figure) {
        double[] values = timings.stream().mapToDouble(figure).sorted().toArray();
        return values[values.length / 2];
    }

    private static Contenders.Timing best(List<Contenders.Timing> timings) {
        return timings.stream().max(Comparator.comparingDouble(Contenders.Timing::perSecond)).orElseThrow();
    }

    /** {@code records} records, keys drawn from 10,000 random-looking ids (seeded), values of about 200 bytes. */
    private static void fill(KafkaBroker broker, String topic, int records) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        // right after topic creation the idempotent producer can hit OutOfOrderSequenceException on this broker:
        // one request in flight keeps the order without it
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        SplittableRandom random = new SplittableRandom(4_2_2026);
        String[] keys = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "entity-" + Long.toHexString(random.nextLong());
        }
        String padding = "x".repeat(160);
        AtomicReference<Exception> failed = new AtomicReference<>();
        try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                String key = keys[random.nextInt(KEYS)];
                producer.send(new ProducerRecord<>(topic, key, "{\"seq\":" + i + ",\"pad\":\"" + padding + "\"}"),
                        (metadata, error) -> {
                            if (error != null) {
                                failed.compareAndSet(null, error);
                            }
                        });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("pre-filling " + topic + " failed", failed.get());
        }
    }
}
