package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Processing far slower than {@code max.poll.interval.ms}: full lanes pause the partitions, the consumer thread keeps
 * polling, no rebalance happens and nothing is lost.
 */
class BackpressureIT {

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void recordsTakenInAreBoundedInBytesThePartitionsPauseAtTheLimitAndResume() throws Exception {
        String group = RuntimeTestSupport.unique("bytes-group");
        int records = 600;
        // "k<i>" + "v<j>": at most 8 bytes a record
        String topic = RuntimeTestSupport.keyedTopic(broker, "bytes", 2, records, 60);
        long limit = 1_024;
        int pollRecords = 50;
        Set<String> processed = ConcurrentHashMap.newKeySet();
        AtomicLong maxBuffered = new AtomicLong();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(2).maxBufferedBytes(limit)
                .kafka("max.poll.records", pollRecords).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            maxBuffered.accumulateAndGet((long) registry.get("changestream.runtime.buffered.bytes").gauge().value(),
                    Math::max);
            Thread.sleep(2);
            processed.add(event.partition() + "@" + event.offset());
            return Outcome.success();
        }).meterRegistry(registry).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runtime.status().partitions().stream()
                    .anyMatch(p -> p.pauseReasons().contains("MEMORY_LIMIT")));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> processed.size() == records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, Duration.ofSeconds(10));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> runtime.status().partitions().stream()
                    .noneMatch(RuntimeStatus.PartitionStatus::paused));
            assertEquals(0.0, registry.get("changestream.runtime.buffered.bytes").gauge().value(),
                    "every byte taken in was given back");
        }
        assertTrue(maxBuffered.get() <= limit + pollRecords * 8L,
                "buffered bytes stay within the limit plus one poll, were " + maxBuffered.get());
    }

        @Test
    void slowProcessingPausesAndResumesWithoutARebalance() throws Exception {
        String group = RuntimeTestSupport.unique("slow-group");
        int records = 300;
        String topic = RuntimeTestSupport.keyedTopic(broker, "slow", 2, records, 30);
        Set<String> processed = ConcurrentHashMap.newKeySet();
        AtomicInteger calls = new AtomicInteger();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group)
                .lanes(2).laneCapacity(5).revokeTimeout(Duration.ofMillis(500))
                .kafka("max.poll.interval.ms", 1_500).kafka("max.poll.records", 50)
                .build();
        // 300 records * 20 ms / 2 lanes = 3 s of work: twice max.poll.interval.ms
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            Thread.sleep(20);
            processed.add(event.partition() + "@" + event.offset());
            calls.incrementAndGet();
            return Outcome.success();
        }).meterRegistry(registry).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runtime.status().partitions().stream()
                    .anyMatch(p -> p.pauseReasons().contains("LANE_FULL")));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> processed.size() == records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, Duration.ofSeconds(10));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> runtime.status().partitions().stream()
                    .noneMatch(RuntimeStatus.PartitionStatus::paused));
            assertEquals(2.0, meter(registry, "assigned"), "each partition assigned once");
            assertEquals(0.0, meter(registry, "revoked"), "no rebalance took a partition away");
            assertEquals(0.0, meter(registry, "lost"));
            assertEquals(records, calls.get(), "each record processed once");
        }
    }

    @Test
    void aParkedOldestOffsetPausesThePartitionAtTheInFlightLimitAndResumesWhenItIsDone() throws Exception {
        String group = RuntimeTestSupport.unique("inflight-group");
        int records = 500;
        String topic = RuntimeTestSupport.keyedTopic(broker, "inflight", 1, records, 50);
        Set<Long> processed = ConcurrentHashMap.newKeySet();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(4).maxInFlightPerPartition(100)
                .kafka("max.poll.records", 20).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            if (event.offset() == 0 && event.attempt() == 1) {
                return Outcome.retryAfter(Duration.ofSeconds(2), "holds the commit back");
            }
            processed.add(event.offset());
            return Outcome.success();
        }).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runtime.status().partitions().stream()
                    .anyMatch(p -> p.pauseReasons().contains("IN_FLIGHT_LIMIT")));
            RuntimeStatus.PartitionStatus stuck = runtime.status().partitions().get(0);
            assertEquals(0L, stuck.oldestInFlight().getAsLong(), "the status names the offset holding it back");
            assertEquals(1, runtime.status().parkedKeyCount());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> processed.size() == records);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    RuntimeTestSupport.committed(broker, group).values().stream().mapToLong(Long::longValue).sum()
                            == records);
        }
    }

    @Test
    void aFullDelayQueuePausesEveryPartitionUntilRetriesDrain() throws Exception {
        String group = RuntimeTestSupport.unique("delayfull-group");
        int records = 300;
        String topic = RuntimeTestSupport.keyedTopic(broker, "delayfull", 2, records, 300);
        Set<Long> processed = ConcurrentHashMap.newKeySet();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(4).delayQueueCapacity(10)
                .kafka("max.poll.records", 10).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            if (event.attempt() == 1) {
                return Outcome.retryAfter(Duration.ofMillis(200), "every event waits once");
            }
            processed.add(event.partition() * 100_000L + event.offset());
            return Outcome.success();
        }).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runtime.status().partitions().stream()
                    .anyMatch(p -> p.pauseReasons().contains("DELAY_QUEUE_FULL")));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> processed.size() == records);
            assertEquals(0, runtime.status().delayQueueSize());
        }
    }

    private static double meter(SimpleMeterRegistry registry, String kind) {
        return registry.get("changestream.runtime.rebalance.partitions").tag("kind", kind).counter().count();
    }
}
