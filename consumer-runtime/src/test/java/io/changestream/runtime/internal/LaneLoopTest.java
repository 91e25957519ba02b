package io.changestream.runtime.internal;

import io.changestream.runtime.Backoff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.KeyAssignment;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RetryLaterException;
import io.changestream.state.StateManager;
import io.changestream.testkit.TestClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
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

    private final TestClock clock = TestClock.frozenAt(Instant.ofEpochMilli(1_000_000));
    private final StateManager<OwnedPartition> state = new StateManager<>(clock);
    private final DelayScheduler delays = new DelayScheduler();
    private final LaneAssigner assigner = LaneAssigner.of(KeyAssignment.LEAST_LOADED, 1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
    private final List<Failure> failures = new CopyOnWriteArrayList<>();
    private final OwnedPartition partition = new OwnedPartition(TP);
    private static final int MAX_CALLS_PER_LANE = 3;
    private final CallSlots slots = new CallSlots(100);
    private final AtomicReference<Throwable> fatal = new AtomicReference<>();
    private LaneLoop<String, String> lane;
    private TimerLoop timer;
    private long nextOffset;

    private void start(Processor<String, String> processor, FailureHandler<String, String> handler, int maxAttempts,
                       long timeoutMillis) {
        start(processor, null, handler, maxAttempts, timeoutMillis);
    }

    private void start(Processor<String, String> processor, AsyncProcessor<String, String> async,
                       FailureHandler<String, String> handler, int maxAttempts, long timeoutMillis) {
        Processing<String, String> p = new Processing<>(processor, async, handler, state,
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8), 2.0, 0.0), maxAttempts, timeoutMillis,
                delays, assigner, MAX_CALLS_PER_LANE, slots, new LongAdder(), new RuntimeMetrics(registry, "g"),
                clock, fatal::set);
        lane = new LaneLoop<>(0, new Lane<>(100), p, new SplittableRandom(1), "test");
        timer = new TimerLoop(delays, List.of(lane), clock, timeoutMillis);
        state.assign(partition);
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
        state.track(partition, offset);
        Event<String, String> e = new Event<>("t", 0, offset, key, value, new RecordHeaders(), 0,
                TimestampType.CREATE_TIME, 1);
        assertTrue(lane.lane.offer(new WorkItem<>(e, partition, key, assigner.acquire(key), System.nanoTime(), 0)));
    }

    private void awaitCommittable(long position) {
        Awaitility.await().atMost(WAIT).until(() -> state.committable(partition).equals(OptionalLong.of(position)));
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
        assertTrue(state.committable(partition).isEmpty(), "the parked a1 holds the commit back");

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
    void theFailureHandlerLogsInTheFailedRecordsContextAndTheNextCallSeesOnlyItsOwn() {
        List<Map<String, String>> contexts = new CopyOnWriteArrayList<>();
        start(e -> {
            Map<String, String> mdc = org.slf4j.MDC.getCopyOfContextMap();
            contexts.add(mdc == null ? Map.of() : Map.copyOf(mdc));
            return e.value().equals("a1") ? Outcome.fail("bad") : Outcome.success();
        }, (e, f) -> {
            contexts.add(Map.of("handler", String.valueOf(org.slf4j.MDC.get(RecordLogContext.MDC_RECORD))));
            failures.add(f);
        }, 3, 60_000);
        offer("a", "a1");
        offer("b", "b1");
        awaitCommittable(2);
        assertEquals(List.of(Map.of(RecordLogContext.MDC_RECORD, "t-0@0"), Map.of("handler", "t-0@0"),
                Map.of(RecordLogContext.MDC_RECORD, "t-0@1")), contexts);
    }

    @Test
    void theLanesLogContextNamesTheRecordAndKeysTheProcessorAddedDoNotReachTheNextRecord() {
        List<Map<String, String>> contexts = new CopyOnWriteArrayList<>();
        start(e -> {
            Map<String, String> mdc = org.slf4j.MDC.getCopyOfContextMap();
            contexts.add(mdc == null ? Map.of() : Map.copyOf(mdc));
            if (e.value().equals("a1")) {
                org.slf4j.MDC.put("eventId", "e-1");
            }
            return Outcome.success();
        });
        offer("a", "a1");
        offer("b", "b1");
        offer("c", "c1");
        awaitCommittable(3);
        assertEquals(List.of(Map.of(RecordLogContext.MDC_RECORD, "t-0@0"), Map.of(RecordLogContext.MDC_RECORD, "t-0@1"),
                Map.of(RecordLogContext.MDC_RECORD, "t-0@2")), contexts);
    }

    @Test
    void retriableExceptionsBackOffExponentiallyThenRetriesExhaustedGoToTheFailureHandlerAndAreDone() {
        AtomicInteger calls = new AtomicInteger();
        start(e -> {
            calls.incrementAndGet();
            throw new RetryLaterException("down");
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
        assertTrue(state.committable(partition).isEmpty(), "nothing is done before the handler accepts");
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
    void awaitHoldsTheKeyUntilItsSignalWithoutCountingAnAttemptAndALateSignalReleasesNothing() {
        CompletableFuture<Void> room = new CompletableFuture<>();
        CompletableFuture<Void> late = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            int call = calls.incrementAndGet();
            if (call == 1) {
                return Outcome.await(room, Duration.ofSeconds(60), "queue full");
            }
            if (call == 2) {
                // its second wait ends at the bound: the first signal, completing later, must not end it
                return Outcome.await(late, Duration.ofSeconds(5), "queue full again");
            }
            return Outcome.success();
        });
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 2);
        timer.tick();
        assertEquals(List.of("a1#1"), seen, "nothing is due before the signal (the clock has not moved)");
        room.complete(null);
        timer.tick();
        Awaitility.await().atMost(WAIT).until(() -> seen.size() == 2);
        assertEquals(List.of("a1#1", "a1#1"), seen, "the signal released it, and an await is not an attempt");
        Awaitility.await().atMost(WAIT).until(() -> lane.parkedKeys(10).size() == 1
                && lane.parkedKeys(10).get(0).reason().startsWith("awaiting: queue full again"));
        timer.tick();
        assertEquals(2, seen.size(), "the first park's signal does not release the second");
        clock.advance(Duration.ofSeconds(5));
        timer.tick();
        awaitCommittable(2);
        assertEquals(List.of("a1#1", "a1#1", "a1#1", "a2#1"), seen, "the bound released it; a2 waited behind");
        assertTrue(failures.isEmpty());
        late.complete(null); // a signal of a park that ended releases nothing
        timer.tick();
        assertEquals(4, seen.size());
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
    void theWorkerReplacingATimedOutOneTimesItsNextCallFromItsOwnStart() {
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            if (e.value().equals("g0")) {
                gate.await();
            } else if (e.value().equals("a1")) {
                release.await();
            }
            return Outcome.success();
        }, (e, f) -> failures.add(f), 3, 500);
        for (int i = 0; i < 20_000; i++) { // warm the lane up: fast calls keep their completions batched
            long offset = nextOffset++;
            state.track(partition, offset);
            String key = "w" + (i % 10);
            WorkItem<String, String> w = new WorkItem<>(new Event<>("t", 0, offset, key, "w", new RecordHeaders(), 0,
                    TimestampType.CREATE_TIME, 1), partition, key, assigner.acquire(key), System.nanoTime(), 0);
            while (!lane.lane.offer(w)) {
                Thread.onSpinWait();
            }
        }
        awaitCommittable(20_000);
        offer("g", "g0");
        Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).atMost(WAIT)
                .until(() -> seen.contains("g0#1"));
        offer("b", "b0"); // b0, a1 and a2 reach the worker in one batch, after g0
        offer("a", "a1");
        offer("a", "a2");
        gate.countDown();
        // a1 is stuck for at least 500 ms after b0's call ended
        Awaitility.await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(() -> seen.contains("a1#1"));
        clock.advance(Duration.ofMillis(501));
        timer.tick();
        awaitCommittable(20_004);
        release.countDown();
        double slowestMillis = registry.get("changestream.runtime.processing").tag("outcome", "success").timer()
                .max(java.util.concurrent.TimeUnit.MILLISECONDS);
        assertTrue(slowestMillis < 250, "g0 waited a few ms, b0 and a2 took microseconds; the slowest success read "
                + slowestMillis + " ms (a2 timed from b0's end?)");
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

    // ---- asynchronous processor ----

    private void startAsync(AsyncProcessor<String, String> processor, long timeoutMillis) {
        start(null, processor, (e, f) -> failures.add(f), 3, timeoutMillis);
    }

    @Test
    void asyncCallsOfOtherKeysRunAtOnceUpToTheLaneLimitWhileAKeysNextEventWaitsForItsCompletion() {
        Map<String, CompletableFuture<Outcome>> calls = new ConcurrentHashMap<>();
        List<String> started = new CopyOnWriteArrayList<>();
        startAsync(e -> {
            started.add(e.value());
            return calls.computeIfAbsent(e.value(), v -> new CompletableFuture<>());
        }, 60_000);
        offer("a", "a1");
        offer("a", "a2");
        offer("b", "b1");
        offer("c", "c1");
        offer("d", "d1");
        Awaitility.await().atMost(WAIT).until(() -> started.size() == 3);
        assertEquals(List.of("a1", "b1", "c1"), started, "a2 waits behind a1, d1 for a slot (3 per lane)");
        assertEquals(3, lane.runningCalls());
        assertEquals(3, slots.used());
        calls.get("a1").complete(Outcome.success());
        Awaitility.await().atMost(WAIT).until(() -> started.size() == 4);
        assertEquals("a2", started.get(3), "the key's next event starts when the previous one completed");
        calls.get("b1").complete(Outcome.success());
        Awaitility.await().atMost(WAIT).until(() -> started.contains("d1"));
        List.of("a2", "c1", "d1").forEach(v -> calls.get(v).complete(Outcome.success()));
        awaitCommittable(5);
        assertEquals(0, slots.used(), "every call gave its slot back");
        assertEquals(0, assigner.load(0));
    }

    @Test
    void aHotKeyFillsItsLaneAndTheStatsLineNamesItOnceAnInterval() {
        Map<String, CompletableFuture<Outcome>> calls = new ConcurrentHashMap<>();
        startAsync(e -> calls.computeIfAbsent(e.value(), v -> new CompletableFuture<>()), 60_000);
        for (int i = 1; i <= 6; i++) {
            offer("hot", "hot" + i);
        }
        offer("b", "b1");
        // hot1 runs; hot2..hot6 wait behind it in the lane (its room, not the delay queue)
        Awaitility.await().atMost(WAIT).until(() -> lane.lane.depth() == 5 && calls.containsKey("b1"));
        assertEquals(5, StatsLog.deepestDepth(List.of(lane)));
        assertEquals(0, StatsLog.deepestLane(List.of(lane)));
        StatsLog stats = new StatsLog("g", List.of(lane), 100, delays, 10_000, slots, 100, new LongAdder(), 1L << 20,
                new RuntimeMetrics(registry, "g"), clock);
        clock.advance(Duration.ofSeconds(60));
        String line = stats.line();
        assertTrue(line.contains("deepest lane 0 holds 5 of 100"), line);
        assertTrue(line.contains("hot key 'hot' (5 waiting behind it, lane 0)"), line);
        assertTrue(line.contains("calls 2 of 100"), line);
        assertTrue(stats.line().contains("hot key none"), "a key is logged once per interval, when its chain grew");
        calls.get("b1").complete(Outcome.success());
        for (int i = 1; i <= 6; i++) {
            String v = "hot" + i;
            Awaitility.await().atMost(WAIT).until(() -> calls.containsKey(v));
            calls.get(v).complete(Outcome.success());
        }
        awaitCommittable(7);
        assertEquals(0, lane.lane.depth());
        assertTrue(stats.line().contains("deepest lane 0 holds 0 of 100"));
    }

    @Test
    void anAsyncRetryParksTheKeyAndTheRetryRunsAfterTheBackoffInOrder() {
        startAsync(e -> {
            seen.add(e.value() + "#" + e.attempt());
            return CompletableFuture.completedFuture(e.value().equals("a1") && e.attempt() == 1
                    ? Outcome.retryAfter(Duration.ofSeconds(10), "busy") : Outcome.success());
        }, 60_000);
        offer("a", "a1");
        offer("a", "a2");
        offer("b", "b1");
        Awaitility.await().atMost(WAIT).until(() -> seen.contains("b1#1") && delays.size() == 2);
        assertEquals(List.of("a1#1", "b1#1"), seen);
        clock.advance(Duration.ofSeconds(10));
        timer.tick();
        awaitCommittable(3);
        assertEquals(List.of("a1#1", "b1#1", "a1#2", "a2#1"), seen);
    }

    @Test
    void anAsyncCallPastTheTimeoutIsCancelledFailsAndTheKeyGoesOnWhileALateCompletionIsIgnored() {
        CompletableFuture<Outcome> hanging = new CompletableFuture<>();
        startAsync(e -> {
            seen.add(e.value() + "#" + e.attempt());
            return e.value().equals("a1") ? hanging : CompletableFuture.completedFuture(Outcome.success());
        }, 500);
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> seen.contains("a1#1"));
        clock.advance(Duration.ofMillis(501));
        timer.tick();
        awaitCommittable(2);
        assertEquals(Failure.Kind.TIMED_OUT, failures.get(0).kind());
        assertTrue(hanging.isCancelled(), "the runtime cancels a call it gave up on");
        assertEquals(List.of("a1#1", "a2#1"), seen);
        assertEquals(0, slots.used());
        assertEquals(1, failures.size());
    }

    // ---- errors of the lane's own code ----

    @Test
    void anExceptionInTheLanesOwnCodeIsCountedAndTheEventRetriedInsteadOfStayingInFlight() {
        start(e -> {
            seen.add(e.value() + "#" + e.attempt());
            // Instant.MAX has no epoch millisecond: deciding this outcome throws inside the lane
            return e.value().equals("a1") && e.attempt() == 1
                    ? Outcome.deferUntil(Instant.MAX, "forever") : Outcome.success();
        });
        offer("a", "a1");
        offer("a", "a2");
        Awaitility.await().atMost(WAIT).until(() -> delays.size() == 2);
        clock.advance(Duration.ofSeconds(2));
        timer.tick();
        awaitCommittable(2);
        assertEquals(List.of("a1#1", "a1#2", "a2#1"), seen);
        assertEquals(1.0, registry.get("changestream.runtime.lane.errors").counter().count());
    }

    @Test
    void anOutOfMemoryErrorFailsTheRuntimeAndLeavesTheEventNotDone() {
        start(e -> {
            throw new OutOfMemoryError("test: heap exhausted");
        });
        offer("a", "a1");
        Awaitility.await().atMost(WAIT).until(() -> fatal.get() != null);
        assertTrue(fatal.get() instanceof OutOfMemoryError);
        assertTrue(state.committable(partition).isEmpty(), "the event is not done: it is read again after a restart");
        assertTrue(failures.isEmpty(), "an OutOfMemoryError is not the event's failure");
    }
}
