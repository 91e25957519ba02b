package io.changestream.alerts.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Processing far slower than {@code max.poll.interval.ms}: full lanes pause the partitions, the consumer thread keeps
 * polling, no rebalance happens and nothing is lost.
 */
class BackpressureIT {

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void slowProcessingPausesAndResumesWithoutARebalance() throws Exception {
        String topic = RuntimeTestSupport.unique("slow");
        String group = RuntimeTestSupport.unique("slow-group");
        int records = 300;
        broker.createTopic(topic, 2);
        RuntimeTestSupport.produceKeyed(broker, topic, records, 30);
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
            Map<?, Long> ends = RuntimeTestSupport.nonEmptyEnds(broker, topic);
            Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> RuntimeTestSupport.committed(broker, group).equals(ends));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> runtime.status().partitions().stream()
                    .noneMatch(RuntimeStatus.PartitionStatus::paused));
            assertEquals(2.0, meter(registry, "assigned"), "each partition assigned once");
            assertEquals(0.0, meter(registry, "revoked"), "no rebalance took a partition away");
            assertEquals(0.0, meter(registry, "lost"));
            assertEquals(records, calls.get(), "each record processed once");
        }
    }

    private static double meter(SimpleMeterRegistry registry, String kind) {
        return registry.get("changestream.runtime.rebalance.partitions").tag("kind", kind).counter().count();
    }
}
