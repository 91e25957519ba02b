package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Events that never succeed reach the failure handler and the partition moves past them. */
class PoisonRecordIT {

    private final KafkaBroker broker = Brokers.shared();

    private record Failed(Event<String, String> event, Failure failure) {
    }

    /** 200 records on one partition, keys k0..k9; record 50 (key k0) is {@code value}. */
    private String topicWith(String value) throws Exception {
        String topic = RuntimeTestSupport.unique("poison");
        broker.createTopic(topic, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            records.add(new ProducerRecord<>(topic, "k" + (i % 10), i == 50 ? value : "v" + i));
        }
        RuntimeTestSupport.produce(broker, topic, records);
        return topic;
    }

    @Test
    void poisonRecordIsRetriedToMaxAttemptsThenHandedToTheFailureHandlerAndCommittedPast() throws Exception {
        String topic = topicWith("poison");
        String group = RuntimeTestSupport.unique("poison-group");
        List<Failed> failed = new CopyOnWriteArrayList<>();
        List<Long> k0 = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger poisonAttempts = new AtomicInteger();
        AtomicInteger succeeded = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(4).maxAttempts(3).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            if (event.value().equals("poison")) {
                poisonAttempts.incrementAndGet();
                throw new RetryLaterException("cannot parse");
            }
            if (event.key().equals("k0")) {
                k0.add(event.offset());
            }
            succeeded.incrementAndGet();
            return Outcome.success();
        }).failureHandler((event, failure) -> failed.add(new Failed(event, failure))).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() == 199 && failed.size() == 1);
            awaitCommittedPastEverything(topic, group);
        }
        Failed f = failed.get(0);
        assertEquals(50, f.event().offset());
        assertEquals(Failure.Kind.RETRIES_EXHAUSTED, f.failure().kind());
        assertEquals(3, f.failure().attempts());
        assertEquals(3, poisonAttempts.get());
        assertTrue(f.failure().cause() instanceof RetryLaterException);
        assertEquals(19, k0.size(), "the poison key's later events were processed after it");
        assertEquals(k0.stream().sorted().toList(), k0);
    }

    @Test
    void failOutcomeGoesToTheFailureHandlerWithoutRetry() throws Exception {
        String topic = topicWith("reject");
        String group = RuntimeTestSupport.unique("fail-group");
        List<Failed> failed = new CopyOnWriteArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(2).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            if (event.value().equals("reject")) {
                attempts.incrementAndGet();
                return Outcome.fail("schema says no");
            }
            return Outcome.success();
        }).failureHandler((event, failure) -> failed.add(new Failed(event, failure))).build().start()) {
            awaitCommittedPastEverything(topic, group);
        }
        assertEquals(1, failed.size());
        assertEquals(Failure.Kind.FAILED, failed.get(0).failure().kind());
        assertEquals("schema says no", failed.get(0).failure().reason());
        assertEquals(1, attempts.get());
    }

    @Test
    void attemptPastTheProcessingTimeoutFailsWithoutRetryAndTheLaneGoesOnWithANewThread() throws Exception {
        String topic = topicWith("hang");
        String group = RuntimeTestSupport.unique("timeout-group");
        List<Failed> failed = new CopyOnWriteArrayList<>();
        AtomicInteger hangAttempts = new AtomicInteger();
        AtomicInteger succeeded = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(1)
                .processingTimeout(Duration.ofMillis(500)).build();
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            if (event.value().equals("hang")) {
                hangAttempts.incrementAndGet();
                awaitIgnoringInterrupts(release); // a processor that ignores interrupts: the worst case
            }
            succeeded.incrementAndGet();
            return Outcome.success();
        }).failureHandler((event, failure) -> failed.add(new Failed(event, failure))).meterRegistry(registry)
                .build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() == 199 && failed.size() == 1);
            awaitCommittedPastEverything(topic, group);
            assertEquals(1.0, registry.get("changestream.runtime.timed.out.threads").counter().count());
        } finally {
            release.countDown();
        }
        assertEquals(Failure.Kind.TIMED_OUT, failed.get(0).failure().kind());
        assertEquals(50, failed.get(0).event().offset());
        assertEquals(1, hangAttempts.get(), "timeouts are not retried");
    }

    @Test
    void aRecordThatDoesNotDeserializeGoesToTheFailureHandlerAndThePartitionMovesOn() throws Exception {
        String topic = topicWith("corrupt");
        String group = RuntimeTestSupport.unique("unreadable-group");
        List<Failed> failed = new CopyOnWriteArrayList<>();
        AtomicInteger succeeded = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(2).build();
        try (ConsumerRuntime<String, String> runtime = ConsumerRuntime.builder(config, StringDeserializer::new,
                        () -> (Deserializer<String>) (t, data) -> {
                            String value = new String(data, StandardCharsets.UTF_8);
                            if (value.equals("corrupt")) {
                                throw new SerializationException("not JSON");
                            }
                            return value;
                        }, (Event<String, String> event) -> {
                            succeeded.incrementAndGet();
                            return Outcome.success();
                        })
                .failureHandler((event, failure) -> failed.add(new Failed(event, failure))).build().start()) {
            awaitCommittedPastEverything(topic, group);
            assertEquals(RuntimeState.RUNNING, runtime.state(), "one bad record does not stop the consumer");
        }
        assertEquals(199, succeeded.get());
        assertEquals(1, failed.size());
        assertEquals(Failure.Kind.NOT_DESERIALIZABLE, failed.get(0).failure().kind());
        assertEquals(50, failed.get(0).event().offset());
    }

    /** The group's commit reaches the end of the 200-record topic: the partition moved past the bad record. */
    private void awaitCommittedPastEverything(String topic, String group) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> RuntimeTestSupport.committed(broker, group)
                .equals(Map.of(new TopicPartition(topic, 0), 200L)));
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        boolean interrupted = false;
        while (latch.getCount() > 0) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
