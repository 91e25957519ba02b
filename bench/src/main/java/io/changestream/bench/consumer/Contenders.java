package io.changestream.bench.consumer;

import io.changestream.runtime.CloseMode;
import io.changestream.runtime.ConsumerRuntime;
import io.changestream.runtime.KeyAssignment;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.RuntimeConfig;
import io.confluent.parallelconsumer.ParallelConsumerOptions;
import io.confluent.parallelconsumer.ParallelStreamProcessor;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
    record Timing(int records, Duration startup, Duration steady) {
        double perSecond() {
            return records / (steady.toNanos() / 1e9);
        }
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

    /** Counts processed records and stamps the first and the last. */
    private final class Meter {
        final AtomicInteger done = new AtomicInteger();
        final AtomicLong first = new AtomicLong();
        final CountDownLatch all = new CountDownLatch(1);
        volatile long last;
        final long start = System.nanoTime();

        void processed() {
            first.compareAndSet(0, System.nanoTime());
            if (done.incrementAndGet() == records) {
                last = System.nanoTime();
                all.countDown();
            }
        }

        Timing await() throws InterruptedException {
            if (!all.await(RUN_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("only " + done.get() + " of " + records + " records in " + RUN_LIMIT);
            }
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
                }).threadPrefix("bench-runtime").build().start();
        try {
            return meter.await();
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
            return new Timing(records, Duration.ofNanos(first - start), Duration.ofNanos(last - first));
        }
    }
}
