package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Consumer threads of one instance: a partition moving between two of them, a thread that dies and is started again,
 * and one that cannot be, which the runtime reports as not live. The hooks are the user's key function, which runs
 * on the consumer thread: a stall past {@code max.poll.interval.ms}, or an {@link Error} thrown from it.
 */
class ConsumerThreadsIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aPartitionMovingBetweenTwoConsumerThreadsOfOneInstanceKillsNoThreadAndLosesNothing() throws Exception {
        String group = RuntimeTestSupport.unique("threads-move-group");
        int records = 2_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "threads-move", 4, records, 40);
        Set<String> processed = ConcurrentHashMap.newKeySet();
        AtomicBoolean stalled = new AtomicBoolean();
        CountDownLatch never = new CountDownLatch(1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).consumerThreads(2).lanes(4)
                .revokeTimeout(Duration.ofSeconds(1)).kafka("max.poll.interval.ms", 3_000)
                .kafka("max.poll.records", 50).build();
        try (ConsumerRuntime<String, String> r = RuntimeTestSupport.runtime(config, e -> {
            processed.add(e.partition() + "@" + e.offset());
            return Outcome.success();
        }).meterRegistry(registry).keyFunction(e -> {
            if (e.value().equals("v500") && stalled.compareAndSet(false, true)) {
                // the owning consumer thread is stuck past max.poll.interval.ms: the group moves its partitions to
                // the other thread, then this one resumes with records of partitions it no longer owns
                try {
                    never.await(6, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return e.key();
        }).build().start()) {
            Awaitility.await().atMost(WAIT).until(() -> processed.size() == records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, WAIT);
            assertTrue(stalled.get());
            // the stalled thread's partitions went to the other one: through onPartitionsLost when the coordinator
            // expelled it first, through onPartitionsRevoked when its own leave-group on the poll timeout came first
            // (which one is a race inside the Kafka client); either way the partition moved between two threads
            // (the stalled thread hears of it in its next poll, which may come after the other thread is done)
            Awaitility.await().atMost(WAIT).until(() -> registry.get("changestream.runtime.rebalance.partitions")
                    .tag("kind", "lost").counter().count() + registry.get("changestream.runtime.rebalance.partitions")
                    .tag("kind", "revoked").counter().count() > 0);
            assertEquals(0.0, registry.get("changestream.runtime.consumer.restarts").counter().count(),
                    "no consumer thread died");
            assertEquals(RuntimeState.RUNNING, r.state());
            assertTrue(r.live());
        }
    }

    @Test
    void aConsumerThreadThatDiesIsStartedAgainAndTheStreamGoesOn() throws Exception {
        String group = RuntimeTestSupport.unique("threads-restart-group");
        int records = 1_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "threads-restart", 2, records, 20);
        Set<String> processed = ConcurrentHashMap.newKeySet();
        AtomicBoolean thrown = new AtomicBoolean();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group)
                .consumerRestartBackoff(Duration.ofMillis(200)).build();
        try (ConsumerRuntime<String, String> r = RuntimeTestSupport.runtime(config, e -> {
            processed.add(e.partition() + "@" + e.offset());
            return Outcome.success();
        }).meterRegistry(registry).keyFunction(e -> {
            if (e.value().equals("v300") && thrown.compareAndSet(false, true)) {
                throw new AssertionError("test hook: the consumer thread dies");
            }
            return e.key();
        }).build().start()) {
            Awaitility.await().atMost(WAIT).until(() -> processed.size() == records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, WAIT);
            assertEquals(1.0, registry.get("changestream.runtime.consumer.restarts").counter().count());
            assertEquals(RuntimeState.RUNNING, r.state());
            assertTrue(r.live());
            assertTrue(r.status().live());
        }
    }

    @Test
    void aConsumerThreadThatCannotBeStartedAgainMakesTheRuntimeNotLive() throws Exception {
        String group = RuntimeTestSupport.unique("threads-dead-group");
        String topic = RuntimeTestSupport.keyedTopic(broker, "threads-dead", 1, 10, 2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group)
                .consumerRestartBackoff(Duration.ofMillis(100)).consumerMaxRestarts(2).build();
        try (ConsumerRuntime<String, String> r = RuntimeTestSupport.runtime(config, e -> Outcome.success())
                .meterRegistry(registry).keyFunction(e -> {
                    throw new AssertionError("test hook: this consumer thread always dies");
                }).build().start()) {
            assertTrue(r.live());
            // not live first, then FAILED: the state is set after the last restart gave up
            Awaitility.await().atMost(WAIT).until(() -> r.state() == RuntimeState.FAILED);
            assertFalse(r.live());
            assertFalse(r.status().live());
            assertEquals(2.0, registry.get("changestream.runtime.consumer.restarts").counter().count(),
                    "restarted as often as consumerMaxRestarts allows, then given up");
        }
    }
}
