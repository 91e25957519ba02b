package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Closing with events in flight: DRAIN finishes and commits what was taken in; DONT_DRAIN loses nothing either. */
class ShutdownDrainIT {

    private final KafkaBroker broker = Brokers.shared();
    private static final int RECORDS = 400;

    @Test
    void drainFinishesEverythingTakenInCommitsItAndTheNextRunReadsOnlyTheRest() throws Exception {
        String group = RuntimeTestSupport.unique("drain-group");
        RuntimeConfig config = config("drain", group);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        ConsumerRuntime<String, String> first = startAndAwaitSome(config, seen);
        long start = System.nanoTime();
        first.close(CloseMode.DRAIN, Duration.ofSeconds(20));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        first.close(); // idempotent
        assertEquals(RuntimeState.CLOSED, first.state());
        assertTrue(took.compareTo(Duration.ofSeconds(20)) < 0, "drained within the timeout, took " + took);
        int processedByFirst = seen.size();
        assertTrue(processedByFirst < RECORDS, "the test must close while records remain: " + processedByFirst);

        Map<TopicPartition, Long> committed = RuntimeTestSupport.committed(broker, group);
        long committedTotal = committed.values().stream().mapToLong(Long::longValue).sum();
        assertEquals(processedByFirst, committedTotal, "every processed record is committed, nothing beyond");

        try (ConsumerRuntime<String, String> second = RuntimeTestSupport.runtime(config, counting(seen, 0))
                .build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == RECORDS);
        }
        assertTrue(seen.values().stream().allMatch(n -> n.get() == 1), "drain left nothing to re-process");
    }

    @Test
    void dontDrainStopsQuicklyAndTheNextRunProcessesTheRest() throws Exception {
        String group = RuntimeTestSupport.unique("nodrain-group");
        RuntimeConfig config = config("nodrain", group);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        ConsumerRuntime<String, String> first = startAndAwaitSome(config, seen);
        first.close(CloseMode.DONT_DRAIN, Duration.ofSeconds(10));
        assertEquals(RuntimeState.CLOSED, first.state());
        int processedByFirst = seen.size();
        long committedTotal = RuntimeTestSupport.committed(broker, group).values().stream()
                .mapToLong(Long::longValue).sum();
        assertTrue(committedTotal <= processedByFirst, "never commits past what was processed");

        try (ConsumerRuntime<String, String> second = RuntimeTestSupport.runtime(config, counting(seen, 0))
                .build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == RECORDS);
        }
    }

    /**
     * A fresh topic of {@value #RECORDS} records over 40 keys in four partitions, and the config of {@code group} on
     * it: four lanes of ten, 20 records a poll.
     */
    private RuntimeConfig config(String name, String group) throws Exception {
        String topic = RuntimeTestSupport.keyedTopic(broker, name, 4, RECORDS, 40);
        return RuntimeTestSupport.config(broker, topic, group).lanes(4).laneCapacity(10)
                .kafka("max.poll.records", 20).build();
    }

    /** Starts a runtime taking 10 ms a record and waits until it processed 40: events are in flight. */
    private static ConsumerRuntime<String, String> startAndAwaitSome(RuntimeConfig config,
                                                                     Map<String, AtomicInteger> seen) {
        ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, counting(seen, 10)).build()
                .start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() >= 40);
        return runtime;
    }

    private static Processor<String, String> counting(Map<String, AtomicInteger> seen, long sleepMillis) {
        return event -> {
            Thread.sleep(sleepMillis);
            seen.computeIfAbsent(event.partition() + "@" + event.offset(), k -> new AtomicInteger()).incrementAndGet();
            return Outcome.success();
        };
    }
}
