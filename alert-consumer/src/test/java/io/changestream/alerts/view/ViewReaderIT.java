package io.changestream.alerts.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The one reader of read-only views (decision 2702) against the real broker: it catches up before
 * {@link ViewReader#awaitCaughtUp} returns, sees a record written afterwards ({@link ViewReader#awaitCurrent} includes
 * it), is restarted after its consumer fails and resumes where it stood (nothing read twice), confirms the end
 * offsets while connected, gives up after its restarts, fails its start as told, and closes.
 */
class ViewReaderIT {

    private static final KafkaBroker BROKER = Brokers.shared();

    /** A view of key → value and what was applied, by partition and offset (a record applied twice shows). */
    private static final class View implements ViewReader.Handler<String, String> {
        final Map<String, String> values = new ConcurrentHashMap<>();
        final Set<String> applied = ConcurrentHashMap.newKeySet();
        final AtomicInteger twice = new AtomicInteger();
        final AtomicInteger atEnd = new AtomicInteger();

        @Override
        public void apply(ConsumerRecord<String, String> r) {
            if (!applied.add(r.partition() + "@" + r.offset())) {
                twice.incrementAndGet();
            }
            if (r.value() == null) {
                values.remove(r.key());
            } else {
                values.put(r.key(), r.value());
            }
        }

        @Override
        public void atEnd() {
            atEnd.incrementAndGet();
        }
    }

    private static String newTopic(int partitions) {
        String topic = "it-view-reader-" + UUID.randomUUID();
        BROKER.createTopic(topic, partitions, Map.of("cleanup.policy", "compact"));
        return topic;
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    private static RecordMetadata send(KafkaProducer<String, String> producer, String topic, String key,
                                       String value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, key, value)).get();
    }

    /** Writes k0=v0 … k(n-1)=v(n-1). */
    private static void sendMany(KafkaProducer<String, String> producer, String topic, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            send(producer, topic, "k" + i, "v" + i);
        }
    }

    private static ViewReader.Builder<String, String> reader(String topic, View view) {
        return ViewReader.builder("test view reader of " + topic, Map.of("bootstrap.servers",
                        BROKER.bootstrapServers(), "allow.auto.create.topics", false),
                        StringDeserializer::new, StringDeserializer::new)
                .topics(List.of(topic))
                .handler(view)
                .restarts(Duration.ofMillis(100), Duration.ofMillis(400), 3);
    }

    @Test
    void catchesUpThenFollowsAndAnswersCurrentWithWhatWasAcked() throws Exception {
        String topic = newTopic(3);
        View view = new View();
        try (KafkaProducer<String, String> producer = producer();
             ViewReader<String, String> reader = reader(topic, view).build()) {
            sendMany(producer, topic, 20);
            send(producer, topic, "k3", null);
            reader.start();
            assertTrue(reader.awaitCaughtUp(Duration.ofSeconds(20)));
            assertEquals(19, view.values.size(), "everything there at start, before the catch-up is reported");
            assertNull(view.values.get("k3"), "a tombstone deletes");
            assertTrue(view.atEnd.get() >= 1);
            assertEquals(21, view.applied.size(), "every partition read");

            send(producer, topic, "late", "after the catch-up");
            assertTrue(reader.awaitCurrent(Duration.ofSeconds(10)));
            assertEquals("after the catch-up", view.values.get("late"), "acked before awaitCurrent: included");
            assertTrue(reader.awaitCurrent(Duration.ofSeconds(10)), "nothing new: answered at once");
            RecordMetadata written = send(producer, topic, "mine", "read your write");
            assertTrue(reader.awaitApplied(new TopicPartition(topic, written.partition()), written.offset(),
                    Duration.ofSeconds(10)));
            assertEquals("read your write", view.values.get("mine"), "applied when awaitApplied returns");
            assertFalse(reader.awaitApplied(new TopicPartition(topic, written.partition()), written.offset() + 1,
                    Duration.ofMillis(300)), "not written yet");
            assertTrue(reader.running());
            assertTrue(reader.alive());
            assertEquals(0, reader.restarts());
            assertEquals(0, view.twice.get());
        }
    }

    @Test
    void aFailedReaderIsRestartedAndResumesWhereItStood() throws Exception {
        String topic = newTopic(2);
        View view = new View();
        try (KafkaProducer<String, String> producer = producer();
             ViewReader<String, String> reader = reader(topic, view).build()) {
            sendMany(producer, topic, 10);
            reader.start();
            assertTrue(reader.awaitCaughtUp(Duration.ofSeconds(20)));
            for (int kill = 1; kill <= 2; kill++) {
                reader.kill(new IllegalStateException("test hook: the consumer fails"));
                int expected = kill;
                Awaitility.await().atMost(Duration.ofSeconds(20))
                        .until(() -> reader.restarts() == expected && reader.running());
                send(producer, topic, "after-" + kill, "x");
                assertTrue(reader.awaitCurrent(Duration.ofSeconds(10)));
                assertEquals("x", view.values.get("after-" + kill));
            }
            assertTrue(reader.alive());
            assertEquals(12, view.applied.size());
            assertEquals(0, view.twice.get(), "a restarted reader resumes, it does not read from the beginning");
        }
    }

    @Test
    void confirmsTheEndOffsetsWhileConnected() throws Exception {
        String topic = newTopic(1);
        View view = new View();
        try (ViewReader<String, String> reader = reader(topic, view).confirmEvery(Duration.ofMillis(100)).build()) {
            reader.start();
            assertTrue(reader.awaitCaughtUp(Duration.ofSeconds(20)));
            int first = view.atEnd.get();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> view.atEnd.get() >= first + 3);
        }
    }

    @Test
    void aReaderWhoseTopicIsGoneIsGivenUpAfterItsRestarts() throws Exception {
        String topic = newTopic(1);
        View view = new View();
        try (KafkaProducer<String, String> producer = producer();
             ViewReader<String, String> reader = reader(topic, view).build()) {
            send(producer, topic, "kept", "v");
            reader.start();
            assertTrue(reader.awaitCaughtUp(Duration.ofSeconds(20)));
            try (Admin admin = BROKER.admin()) {
                admin.deleteTopics(List.of(topic)).all().get();
            }
            reader.kill(new IllegalStateException("test hook: the consumer fails"));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !reader.alive());
            assertEquals(3, reader.restarts(), "each restart failed to find its topic");
            assertFalse(reader.running());
            assertTrue(reader.health().contains("given up"), reader.health());
            assertFalse(reader.awaitCurrent(Duration.ofMillis(200)));
            assertEquals("v", view.values.get("kept"), "what it read stays with its owner");
        }
    }

    @Test
    void aMissingTopicFailsTheStartAsTold() throws Exception {
        String missing = "it-view-reader-missing-" + UUID.randomUUID();
        try (ViewReader<String, String> open = reader(missing, new View()).openTimeout(Duration.ofSeconds(5))
                .start(ViewReader.Start.OPEN_FIRST).build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, open::start);
            assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
            assertFalse(open.running());
        }
        try (ViewReader<String, String> strict = reader(missing, new View()).openTimeout(Duration.ofSeconds(5))
                .start(ViewReader.Start.FAIL_UNTIL_CAUGHT_UP).build()) {
            strict.start();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> strict.awaitCaughtUp(Duration.ofSeconds(20)));
            assertTrue(e.getCause().getMessage().contains("does not exist"), e.getCause().getMessage());
            assertEquals(0, strict.restarts(), "never restarted");
            assertTrue(strict.alive());
        }
    }

    @Test
    void closeStopsTheReaderAndItsRestarts() throws Exception {
        String topic = newTopic(1);
        View view = new View();
        ViewReader<String, String> reader = reader(topic, view).build();
        try (KafkaProducer<String, String> producer = producer()) {
            reader.start();
            assertTrue(reader.awaitCaughtUp(Duration.ofSeconds(20)));
            reader.kill(new IllegalStateException("test hook: the consumer fails"));
            reader.close(); // before its restart (100 ms): none comes
            reader.close();
            assertFalse(reader.running());
            assertFalse(reader.awaitCurrent(Duration.ofSeconds(1)));
            send(producer, topic, "after-close", "x");
            org.awaitility.Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                    .until(() -> reader.restarts() == 0 && !reader.running() && view.values.get("after-close") == null);
            assertEquals(0, reader.restarts());
            assertFalse(reader.running());
            assertNull(view.values.get("after-close"));
        }
    }
}
