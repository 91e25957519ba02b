package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Instances join and leave while the stream is processed (no kills): cooperative rebalances hand partitions over
 * with a commit of everything the old owner finished, so no record is processed twice and none is left behind.
 */
class GracefulRebalanceIT {

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void joinAndLeaveDuringTheStreamReprocessNothingAndLeaveNoPartitionStuck() throws Exception {
        String group = RuntimeTestSupport.unique("rebalance-group");
        int records = 8_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "rebalance", 6, records, 200);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        AtomicInteger calls = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(2).laneCapacity(50)
                .kafka("max.poll.records", 100).kafka("heartbeat.interval.ms", 300).build();
        Processor<String, String> processor = event -> {
            Thread.sleep(2);
            seen.computeIfAbsent(event.partition() + "@" + event.offset(), k -> new AtomicInteger()).incrementAndGet();
            calls.incrementAndGet();
            return Outcome.success();
        };
        List<ConsumerRuntime<String, String>> started = new ArrayList<>();
        try {
            ConsumerRuntime<String, String> a = start(config, processor, "a", started);
            awaitCalls(calls, calls.get() + 500);
            joinAndProgress(start(config, processor, "b", started), calls);
            joinAndProgress(start(config, processor, "c", started), calls);
            a.close(CloseMode.DRAIN, Duration.ofSeconds(20));
            assertEquals(RuntimeState.CLOSED, a.state());
            assertTrue(calls.get() < records - 500, "the last member left while the stream was still running");
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, Duration.ofSeconds(15));
            for (ConsumerRuntime<String, String> r : started.subList(1, started.size())) {
                assertTrue(r.status().partitions().stream().allMatch(p -> p.inFlightCount() == 0),
                        "no partition left with work in flight");
            }
        } finally {
            started.forEach(ConsumerRuntime::close);
        }
        long reprocessed = seen.values().stream().mapToInt(AtomicInteger::get).filter(n -> n > 1).count();
        assertEquals(0, reprocessed, "records processed more than once");
        assertEquals(records, calls.get());
    }

    private ConsumerRuntime<String, String> start(RuntimeConfig config, Processor<String, String> processor,
                                                  String name, List<ConsumerRuntime<String, String>> started) {
        ConsumerRuntime<String, String> r = RuntimeTestSupport.runtime(config, processor)
                .threadPrefix("cs-" + name).build().start();
        started.add(r);
        return r;
    }

    /** Waits until the new member owns partitions and the group processed 300 more records. */
    private static void joinAndProgress(ConsumerRuntime<String, String> joined, AtomicInteger calls) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !joined.status().partitions().isEmpty());
        awaitCalls(calls, calls.get() + 300);
    }

    private static void awaitCalls(AtomicInteger calls, int atLeast) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> calls.get() >= atLeast);
    }
}
