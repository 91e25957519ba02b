package io.changestream.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.KeyAssignment;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RetriableException;
import io.changestream.state.StateManager;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One lane worker with a manual clock and no broker: parking, per-key order across retries, final failures,
 * not-before times, timeouts and revokes. The timer is driven by hand ({@link TimerLoop#tick()}).
 */
class LaneLoopTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock();
    private final StateManager<TopicPartition> state = new StateManager<>(clock);
    private final DelayScheduler delays = new DelayScheduler();
    private final LaneAssigner assigner = LaneAssigner.of(KeyAssignment.LEAST_LOADED, 1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final List<Failure> failures = new CopyOnWriteArrayList<>();
    private final OwnedPartition partition = new OwnedPartition(TP);
    private LaneLoop<String, String> lane;
    private TimerLoop timer;
    private long nextOffset;

    private void start(Processor<String, String> processor, FailureHandler<String, String> handler, int maxAttempts,
                       long timeoutMillis) {
        Processing<String, String> p = new Processing<>(processor, handler, state,
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8), 2.0, 0.0), maxAttempts, timeoutMillis,
                delays, assigner, new RuntimeMetrics(registry, "g"), clock);
        lane = new LaneLoop<>(0, new Lane<>(100), p, new SplittableRandom(1), "test");
        timer = new TimerLoop(delays, List.of(lane), clock, timeoutMillis);
        state.assign(TP);
        lane.start();
    }

    private void start(Processor<String, String> processor) {
        start(processor, (e, f) -> failures.add(f), 3, 60_000);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (lane != null) {
            lane.stop(1_000);
        }
    }

    private void offer(String key, String value) {
        long offset = nextOffset++;
        state.track(TP, offset);
        Event<String, String> e = new Event<>("t", 0, offset, key, value, new RecordHeaders(), 0,
                TimestampType.CREATE_TIME, 1);
        assertTrue(lane.lane.offer(new WorkItem<>(e, partition, key, assigner.acquire(key), System.nanoTime())));
    }

    private void awaitCommittable(long position) {
        Awaitility.await().atMost(WAIT).until(() -> state.committable(TP).equals(OptionalLong.of(position)));
    }

    @Test
    void aRetryParksItsKeyLaterEventsOfTheKeyWaitAndOtherKeysGoOn() {
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            return e.value().equals("a1") && e.attempt() == 1
                    ? Outcome.retryAfter(Duration.ofSeconds(10), "busy") : Outcome.success();
        });
        offer("a", "a1");
        offer("a", "a2");
        offer("b", "b1");
        Awaitility.await().atMost(WAIT).until(() -> seen.contains("b1#1"));
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 2);
        assertEquals(List.of("a1#1", "b1#1"), seen, "a2 waits behind the parked a1");
        List<LaneLoop.ParkedKeyView> parked = lane.parkedKeys(10);
        assertEquals(1, parked.size());
        assertEquals("a", parked.get(0).key());
        assertEquals(1, parked.get(0).waitingBehind());
        assertEquals(2, parked.get(0).attempt());
        assertTrue(state.committable(TP).isEmpty(), "the parked a1 holds the commit back");

        clock.advance(Duration.ofSeconds(9));
        timer.tick();
        assertEquals(2, delays.size(), "not due yet");
        clock.advance(Duration.ofSeconds(1));
        timer.tick();
        awaitCommittable(3);
        assertEquals(List.of("a1#1", "b1#1", "a1#2", "a2#1"), seen);
        assertEquals(0, delays.size());
        assertEquals(0, lane.parkedKeyCount());
        assertEquals(0, assigner.load(0), "every event released its lane lease");
    }

    @Test
    void retriableExceptionsBackOffExponentiallyThenRetriesExhaustedGoToTheFailureHandlerAndAreDone() {
        AtomicInteger calls = new AtomicInteger();
        start(e -> {
            calls.incrementAndGet();
            throw new RetriableException("down");
        });
        offer("a", "a1");
        Awaitility.await().atMost(WAIT).until(() -> calls.get() == 1 && delays.size() == 1);
        clock.advance(Duration.ofMillis(999));
        timer.tick();
        assertEquals(1, calls.get(), "first retry after the initial backoff of 1 s");
        clock.advance(Duration.ofMillis(1));
        timer.tick();
        Awaitility.await().atMost(WAIT).until(() -> calls.get() == 2 && delays.size() == 1);
        clock.advance(Duration.ofMillis(2_000));
        timer.tick();
        awaitCommittable(1);
        assertEquals(3, calls.get());
        assertEquals(1, failures.size());
        assertEquals(Failure.Kind.RETRIES_EXHAUSTED, failures.get(0).kind());
        assertEquals(3, failures.get(0).attempts());
        assertEquals(1.0, registry.get("changestream.runtime.final.failures").tag("kind", "retries_exhausted")
                .counter().count());
    }

    @Test
    void aFailureHandlerThatThrowsKeepsTheEventParkedUntilItAccepts() {
        AtomicInteger handlerCalls = new AtomicInteger();
        start(e -> Outcome.fail("bad"), (e, f) -> {
            if (handlerCalls.incrementAndGet() == 1) {
                throw new IllegalStateException("dlq unavailable");
            }
            failures.add(f);
        }, 3, 60_000);
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> handlerCalls.get() == 1 && delays.size() == 2);
        assertTrue(state.committable(TP).isEmpty(), "nothing is done before the handler accepts");
        clock.advance(Duration.ofSeconds(1));
        timer.tick();
        awaitCommittable(2);
        assertEquals(3, handlerCalls.get(), "a1 accepted on the second call, then a2");
        assertEquals(Failure.Kind.FAILED, failures.get(0).kind());
    }

    @Test
    void deferUntilHoldsTheKeyUntilTheInstantWithoutCountingAnAttempt() {
        Instant windowEnd = clock.instant().plusSeconds(30);
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            return e.value().equals("a1") && clock.instant().isBefore(windowEnd)
                    ? Outcome.deferUntil(windowEnd, "debounce") : Outcome.success();
        });
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 2);
        clock.advance(Duration.ofSeconds(30));
        timer.tick();
        awaitCommittable(2);
        assertEquals(List.of("a1#1", "a1#1", "a2#1"), seen, "a defer is not an attempt");
    }

    @Test
    void anAttemptPastTheTimeoutFailsOnANewThreadAndTheKeysChainGoesOn() {
        CountDownLatch release = new CountDownLatch(1);
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            if (e.value().equals("a1")) {
                release.await();
            }
            return Outcome.success();
        }, (e, f) -> failures.add(f), 3, 500);
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> seen.contains("a1#1"));
        clock.advance(Duration.ofMillis(501));
        timer.tick();
        awaitCommittable(2);
        assertEquals(Failure.Kind.TIMED_OUT, failures.get(0).kind());
        assertEquals(List.of("a1#1", "a2#1"), seen);
        assertEquals(1.0, registry.get("changestream.runtime.timed.out.threads").counter().count());
        release.countDown();
    }

    @Test
    void aRevokeDropsTheRevokedPartitionsParkedAndQueuedEvents() {
        start(e -> Outcome.retryAfter(Duration.ofMinutes(1), "never now"));
        offer("a", "a1");
        offer("a", "a2");
        offer("b", "b1");
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 3);
        partition.revoked = true;
        lane.purgeRevoked();
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 0 && lane.parkedKeyCount() == 0);
        assertEquals(0, assigner.load(0));
        assertEquals(3.0, registry.get("changestream.runtime.dropped").counter().count());
    }
}
