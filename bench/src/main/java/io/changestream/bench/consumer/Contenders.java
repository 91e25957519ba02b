package io.changestream.bench.consumer;

import io.changestream.runtime.CloseMode;
import io.changestream.runtime.ConsumerRuntime;
import io.changestream.runtime.KeyAssignment;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.RuntimeConfig;
import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The three contenders, each consuming the whole topic once in a fresh group and timing it. */
final class Contenders {

    /** Longest one contender may take before the run is declared failed. */
    static final Duration RUN_LIMIT = Duration.ofMinutes(3);

    /**
     * One timed pass: {@code startup} from start to the first record processed, {@code steady} from the first to the
     * last record processed.
     */
    record Timing(int records, Duration startup, Duration steady, long processCpuNanos, long pollThreadCpuNanos,
                  long laneCpuNanos) {
        Timing(int records, Duration startup, Duration steady) {
            this(records, startup, steady, 0, 0, 0);
        }

        double perSecond() {
            return records / (steady.toNanos() / 1e9);
        }

        /** CPU of the whole JVM (broker included) per record, start to end: robust to other load, unlike wall time. */
        double processCpuPerRecord() {
            return (double) processCpuNanos / records;
        }

        /** CPU of the thread that polls (the bare loop's, or the runtime's consumer thread) per record. */
        double pollThreadCpuPerRecord() {
            return (double) pollThreadCpuNanos / records;
        }

        /** CPU of the runtime's lane threads per record (0 for the bare loop). */
        double laneCpuPerRecord() {
            return (double) laneCpuNanos / records;
        }

        Timing withCpu(long processCpu, long pollThreadCpu, long laneCpu) {
            return new Timing(records, startup, steady, processCpu, pollThreadCpu, laneCpu);
        }
    }

    /** CPU time of this JVM, all threads. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Dev aid: CPU per thread group (digits stripped), summed over live threads. On Linux it reads every thread of the
     * process from {@code /proc/self/task} (the JVM's own too: GC, JIT compilers), names cut to 15 characters.
     */
    static java.util.Map<String, Long> cpuByGroup() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks != null) {
            for (java.io.File task : tasks) {
                try {
                    String comm = java.nio.file.Files.readString(task.toPath().resolve("comm")).trim();
                    String schedstat = java.nio.file.Files.readString(task.toPath().resolve("schedstat"));
                    String group = comm.replaceAll("[0-9]+", "N");
                    out.merge(group, Long.parseLong(schedstat.split(" ")[0]), Long::sum);
                    // context switches (x1000, so that the per-record print shows switches per 1,000 records)
                    out.merge("switches:" + group, 1000 * Long.parseLong(schedstat.split(" ")[2].trim()), Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
            out.put("(process)", processCpuNanos());
            return out;
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null) {
                out.merge(info.getThreadName().replaceAll("[0-9]+", "N"),
                        Math.max(0, threads.getThreadCpuTime(info.getThreadId())), Long::sum);
            }
        }
        out.put("(process)", processCpuNanos());
        return out;
    }

    static void printDelta(String what, java.util.Map<String, Long> before, int records) {
        if (System.getenv("CONSUMER_BENCH_CPU") == null) {
            return;
        }
        java.util.Map<String, Long> after = cpuByGroup();
        StringBuilder b = new StringBuilder(what).append(" ns/record:");
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d / records > 5) {
                b.append(' ').append(k).append('=').append(d / records);
            }
        });
        System.out.println(b);
    }

    /** CPU time of the live threads whose name starts with {@code prefix}. */
    static long threadCpuNanos(String prefix) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private final String bootstrap;
    private final String topic;
    private final int records;

    Contenders(String bootstrap, String topic, int records) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.records = records;
    }

    private Map<String, Object> kafka() {
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", bootstrap);
        kafka.put("group.id", "bench-" + UUID.randomUUID());
        kafka.put("auto.offset.reset", "earliest");
        kafka.put("enable.auto.commit", false);
        return kafka;
    }

    /**
     * Counts processed records and stamps the first and the last. The count is striped (a {@link LongAdder}), and a
     * watcher thread stamps the last record when the sum reaches the total (within {@value #WATCH_NANOS} ns): two
     * contended atomics per record (a shared counter and a compare-and-set of the first stamp) cost the lanes of the
     * no-op case more than the runtime's own work, and a user's processor does not pay them.
     */
    private final class Meter {
        static final long WATCH_NANOS = 1_000_000;
        final LongAdder done = new LongAdder();
        final AtomicLong first = new AtomicLong();
        volatile long last;
        final long start = System.nanoTime();

        void processed() {
            if (first.get() == 0) {
                first.compareAndSet(0, System.nanoTime());
            }
            done.increment();
        }

        Timing await() {
            long deadline = start + RUN_LIMIT.toNanos();
            while (done.sum() < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + done.sum() + " of " + records + " records in "
                            + RUN_LIMIT);
                }
                LockSupport.parkNanos(WATCH_NANOS);
            }
            last = System.nanoTime();
            return new Timing(records, Duration.ofNanos(first.get() - start), Duration.ofNanos(last - first.get()));
        }
    }

    /** The consumer-runtime with {@code lanes} lanes, each event sleeping {@code workMillis}. */
    Timing runtime(int lanes, int consumerThreads, long workMillis, KeyAssignment assignment)
            throws InterruptedException {
        Meter meter = new Meter();
        RuntimeConfig config = RuntimeConfig.builder(List.of(topic), kafka())
                .lanes(lanes).consumerThreads(consumerThreads).keyAssignment(assignment).build();
        ConsumerRuntime<String, String> runtime = ConsumerRuntime.builder(config, StringDeserializer::new,
                StringDeserializer::new, event -> {
                    if (workMillis > 0) {
                        Thread.sleep(workMillis);
                    }
                    meter.processed();
                    return Outcome.success();
                }).threadPrefix("bench-runtime").build();
        long cpuBefore = processCpuNanos();
        java.util.Map<String, Long> groups = cpuByGroup();
        runtime.start();
        try {
            Timing t = meter.await();
            printDelta("runtime", groups, records);
            return t.withCpu(processCpuNanos() - cpuBefore, threadCpuNanos("bench-runtime-consumer"),
                    threadCpuNanos("bench-runtime-lane"));
        } finally {
            runtime.close(CloseMode.DONT_DRAIN, Duration.ofSeconds(10));
        }
    }

    /**
     * The consumer-runtime with an asynchronous processor: each call completes {@code workMillis} later on a timer
     * (no thread waits), at most {@code maxCalls} at once in the runtime (the same concurrency as Parallel
     * Consumer's {@code maxConcurrency}).
     */
    Timing runtimeAsync(int lanes, int maxCalls, long workMillis) throws InterruptedException {
        Meter meter = new Meter();
        RuntimeConfig config = RuntimeConfig.builder(List.of(topic), kafka())
                .lanes(lanes).maxCalls(maxCalls).maxCallsPerLane(maxCalls).keyAssignment(KeyAssignment.HASH).build();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        ConsumerRuntime<String, String> runtime = ConsumerRuntime.asyncBuilder(config, StringDeserializer::new,
                StringDeserializer::new, event -> {
                    CompletableFuture<Outcome> done = new CompletableFuture<>();
                    timer.schedule(() -> {
                        meter.processed();
                        done.complete(Outcome.success());
                    }, workMillis, TimeUnit.MILLISECONDS);
                    return done;
                }).threadPrefix("bench-runtime-async").build().start();
        try {
            return meter.await();
        } finally {
            runtime.close(CloseMode.DONT_DRAIN, Duration.ofSeconds(10));
            timer.shutdownNow();
        }
    }

        /** Confluent Parallel Consumer, KEY ordering, {@code maxConcurrency}, each record sleeping {@code workMillis}. */
    Timing parallelConsumer(int maxConcurrency, long workMillis) throws InterruptedException {
        Meter meter = new Meter();
        KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(kafka(), new StringDeserializer(), new StringDeserializer());
        ParallelConsumerOptions<String, String> options = ParallelConsumerOptions.<String, String>builder()
                .ordering(ParallelConsumerOptions.ProcessingOrder.KEY)
                .maxConcurrency(maxConcurrency)
                .consumer(consumer)
                .build();
        ParallelStreamProcessor<String, String> pc = ParallelStreamProcessor.createEosStreamProcessor(options);
        pc.subscribe(List.of(topic));
        pc.poll(context -> {
            try {
                Thread.sleep(workMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            meter.processed();
        });
        try {
            return meter.await();
        } finally {
            pc.closeDontDrainFirst(Duration.ofSeconds(10));
        }
    }

    /** A bare poll loop that does nothing with the records: the limit of this machine. */
    Timing rawPoll() {
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(kafka(), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long cpuBefore = processCpuNanos();
            java.util.Map<String, Long> groups = cpuByGroup();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long threadBefore = threads.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            long first = 0;
            int seen = 0;
            long deadline = start + RUN_LIMIT.toNanos();
            while (seen < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("raw poll read only " + seen + " of " + records);
                }
                ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(100));
                if (!batch.isEmpty() && first == 0) {
                    first = System.nanoTime();
                }
                seen += batch.count();
            }
            long last = System.nanoTime();
            printDelta("raw", groups, records);
            return new Timing(records, Duration.ofNanos(first - start), Duration.ofNanos(last - first))
                    .withCpu(processCpuNanos() - cpuBefore, threads.getCurrentThreadCpuTime() - threadBefore, 0);
        }
    }
}
