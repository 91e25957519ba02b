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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The processor contract, one kit for both processor kinds ({@link Processor} and {@link AsyncProcessor}): per-key
 * offset order, retries to the failure handler, timeouts, and revokes, end to end on the shared broker. A subclass
 * says how a piece of {@link Work} becomes a runtime of its kind; the assertions are the same.
 */
abstract class ProcessorContract {

    /** What the test's processor does with one event; may throw (a failure, as the contract says). */
    @FunctionalInterface
    interface Work {
        Outcome apply(Event<String, String> event) throws Exception;
    }

    private static final Duration WAIT = Duration.ofSeconds(60);

    protected final KafkaBroker broker = Brokers.shared();

    /** A runtime builder of this kit's processor kind doing {@code work}. */
    abstract ConsumerRuntime.Builder<String, String> builder(RuntimeConfig config, Work work);

    private ConsumerRuntime<String, String> start(RuntimeConfig config, Work work, FailureHandler<String, String> h,
                                                  String name) {
        return builder(config, work).failureHandler(h).seed(42).threadPrefix("contract-" + name).build().start();
    }

    @ParameterizedTest
    @EnumSource(KeyAssignment.class)
    void everyKeysEventsAreProcessedInOffsetOrderExactlyOnceAndCommitted(KeyAssignment assignment) throws Exception {
        String group = RuntimeTestSupport.unique("contract-order-group");
        int records = 3_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "contract-order", 4, records, 60);
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(4).keyAssignment(assignment)
                .build();
        try (ConsumerRuntime<String, String> r = start(config, e -> {
            if (running.computeIfAbsent(e.key(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            try {
                byKey.computeIfAbsent(e.key(), k -> new CopyOnWriteArrayList<>())
                        .add(Integer.parseInt(e.value().substring(1)));
                if (e.offset() % 7 == 0) {
                    TimeUnit.MICROSECONDS.sleep(200); // uneven work, so calls of other keys overtake
                }
                return Outcome.success();
            } finally {
                running.get(e.key()).decrementAndGet();
            }
        }, (e, f) -> { }, "order")) {
            Awaitility.await().atMost(WAIT)
                    .until(() -> byKey.values().stream().mapToInt(List::size).sum() >= records);
            awaitCommittedToTheEnd(topic, group);
            assertEquals(RuntimeState.RUNNING, r.state());
        }
        assertEquals(0, overlaps.get(), "two events of one key ran at the same time");
        assertEquals(records, byKey.values().stream().mapToInt(List::size).sum(), "each record exactly once");
        byKey.forEach((key, values) -> {
            List<Integer> sorted = new ArrayList<>(values);
            sorted.sort(Integer::compare);
            assertEquals(sorted, values, "offset order of key " + key);
        });
    }

    @Test
    void retriesKeepTheKeysOrderAndExhaustedRetriesGoToTheFailureHandlerThenAreDone() throws Exception {
        String group = RuntimeTestSupport.unique("contract-retry-group");
        int records = 400;
        String topic = RuntimeTestSupport.keyedTopic(broker, "contract-retry", 2, records, 20);
        Map<String, List<String>> byKey = new ConcurrentHashMap<>();
        List<Failure> failures = new CopyOnWriteArrayList<>();
        List<String> failed = new CopyOnWriteArrayList<>();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(3).maxAttempts(3).build();
        try (ConsumerRuntime<String, String> r = start(config, e -> {
            int i = Integer.parseInt(e.value().substring(1));
            if (i == 7) {
                return Outcome.retryAfter(Duration.ofMillis(5), "never");
            }
            if (i % 10 == 3 && e.attempt() < 3) {
                throw new RetryLaterException("flaky " + e.value());
            }
            byKey.computeIfAbsent(e.key(), k -> new CopyOnWriteArrayList<>()).add(e.value());
            return Outcome.success();
        }, (e, f) -> {
            failures.add(f);
            failed.add(e.value());
        }, "retry")) {
            awaitCommittedToTheEnd(topic, group);
            assertEquals(RuntimeState.RUNNING, r.state());
        }
        assertEquals(List.of("v7"), failed);
        assertEquals(Failure.Kind.RETRIES_EXHAUSTED, failures.get(0).kind());
        assertEquals(3, failures.get(0).attempts());
        assertEquals(records - 1, byKey.values().stream().mapToInt(List::size).sum());
        byKey.forEach((key, values) -> {
            List<String> sorted = new ArrayList<>(values);
            sorted.sort((a, b) -> Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1))));
            assertEquals(sorted, values, "order of key " + key + " across retries");
        });
    }

    @Test
    void aCallPastTheProcessingTimeoutFailsWithoutRetryAndItsKeyAndTheOthersGoOn() throws Exception {
        String topic = RuntimeTestSupport.unique("contract-timeout");
        String group = RuntimeTestSupport.unique("contract-timeout-group");
        broker.createTopic(topic, 1);
        List<ProducerRecord<String, String>> rs = new ArrayList<>();
        rs.add(new ProducerRecord<>(topic, "slow", "v0"));
        for (int i = 1; i <= 20; i++) {
            rs.add(new ProducerRecord<>(topic, i % 2 == 0 ? "slow" : "other", "v" + i));
        }
        RuntimeTestSupport.produce(broker, topic, rs);
        CountDownLatch never = new CountDownLatch(1);
        List<String> processed = new CopyOnWriteArrayList<>();
        List<Failure> failures = new CopyOnWriteArrayList<>();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(1)
                .processingTimeout(Duration.ofMillis(500)).build();
        try (ConsumerRuntime<String, String> r = start(config, e -> {
            if (e.value().equals("v0")) {
                never.await(30, TimeUnit.SECONDS); // hangs past the timeout
            }
            processed.add(e.value());
            return Outcome.success();
        }, (e, f) -> failures.add(f), "timeout")) {
            Awaitility.await().atMost(WAIT).until(() -> processed.size() >= 20);
            awaitCommittedToTheEnd(topic, group);
            assertEquals(RuntimeState.RUNNING, r.state());
        } finally {
            never.countDown();
        }
        assertEquals(1, failures.size());
        assertEquals(Failure.Kind.TIMED_OUT, failures.get(0).kind());
        assertEquals(1, failures.get(0).attempts(), "a timeout is never retried");
        assertEquals(20, processed.stream().filter(v -> !v.equals("v0")).count());
        assertEquals("v2", processed.stream().filter(v -> Integer.parseInt(v.substring(1)) % 2 == 0 && !v.equals("v0"))
                .findFirst().orElseThrow(), "the slow key goes on with its next event");
    }

    @Test
    void aMemberJoiningAndLeavingRevokesWithoutReprocessingAndKeepsEachKeysOrder() throws Exception {
        String group = RuntimeTestSupport.unique("contract-revoke-group");
        int records = 4_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "contract-revoke", 4, records, 100);
        Map<String, AtomicInteger> times = new ConcurrentHashMap<>();
        Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
        AtomicInteger calls = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(2).laneCapacity(50)
                .kafka("max.poll.records", 100).kafka("heartbeat.interval.ms", 300).build();
        Object throttle = new Object();
        Work work = e -> {
            synchronized (throttle) { // about 500 records/s whatever the kind: the stream outlasts the rebalances
                TimeUnit.MILLISECONDS.sleep(2);
            }
            times.computeIfAbsent(e.partition() + "@" + e.offset(), k -> new AtomicInteger()).incrementAndGet();
            byKey.computeIfAbsent(e.key(), k -> new CopyOnWriteArrayList<>())
                    .add(Integer.parseInt(e.value().substring(1)));
            calls.incrementAndGet();
            return Outcome.success();
        };
        ConsumerRuntime<String, String> a = start(config, work, (e, f) -> { }, "a");
        ConsumerRuntime<String, String> b = null;
        try {
            Awaitility.await().atMost(WAIT).until(() -> calls.get() >= 500);
            b = start(config, work, (e, f) -> { }, "b");
            ConsumerRuntime<String, String> joined = b;
            Awaitility.await().atMost(WAIT).until(() -> !joined.status().partitions().isEmpty());
            int before = calls.get();
            Awaitility.await().atMost(WAIT).until(() -> calls.get() >= before + 300);
            a.close(CloseMode.DRAIN, Duration.ofSeconds(20));
            assertTrue(calls.get() < records, "the member left while the stream was still running");
            Awaitility.await().atMost(WAIT).until(() -> times.size() == records);
            awaitCommittedToTheEnd(topic, group);
        } finally {
            a.close();
            if (b != null) {
                b.close();
            }
        }
        assertEquals(0, times.values().stream().filter(n -> n.get() > 1).count(), "records processed twice");
        byKey.forEach((key, values) -> {
            List<Integer> sorted = new ArrayList<>(values);
            sorted.sort(Integer::compare);
            assertEquals(sorted, values, "offset order of key " + key + " across the revokes");
        });
    }

    private void awaitCommittedToTheEnd(String topic, String group) throws Exception {
        RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, WAIT);
    }
}
