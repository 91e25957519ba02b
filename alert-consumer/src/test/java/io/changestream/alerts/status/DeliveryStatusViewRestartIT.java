package io.changestream.alerts.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: the {@code /status} view's reader died for good on one Kafka timeout and was not in liveness. Now a real
 * timeout (its DLQ topic deleted on a broker that does not auto-create topics: reading the end offsets times out)
 * ends the reader, a supervisor restarts it with backoff, it resumes and counts what came meanwhile; a reader that
 * cannot be restarted {@code status.maxRestarts} times in a row is given up and fails liveness.
 */
class DeliveryStatusViewRestartIT {

    @Test
    void aKafkaTimeoutRestartsTheReaderAndOneThatCannotRestartFailsLiveness() throws Exception {
        try (KafkaBroker broker = Brokers.start(Map.of("auto.create.topics.enable", "false"));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                     ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            String ledger = "restart-ledger-" + UUID.randomUUID();
            String dlq = "restart-dlq-" + UUID.randomUUID();
            broker.createTopic(ledger, 1);
            broker.createTopic(dlq, 1);
            deadLetter(producer, dlq, "e1");
            Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers(),
                    "default.api.timeout.ms", 2_000, "allow.auto.create.topics", false);
            EventSubscription s1 = EventSubscription.builder("s1", "one").destinations(List.of(
                    new SubscriptionDestination("w1", SubscriptionCategory.EXTERNAL, SubscriptionType.WEBHOOK,
                            Json.mapper().readTree("{\"endpoint\": \"https://hooks.example.com/a\"}")))).build();
            try (DeliveryStatusView view = DeliveryStatusView.start(new StatusSettings(ledger, dlq, "g1", 100, 1_000,
                    Duration.ofSeconds(10), Duration.ofMillis(200), Duration.ofMillis(400), 1_000), kafka)) {
                assertTrue(view.current());
                assertEquals(1, view.statuses(s1).get(0).deadLettered());

                deleteTopic(broker, dlq);
                assertFalse(view.current(), "the reader times out reading the DLQ's end offset");
                assertTrue(view.alive(), "restarts are pending");
                broker.createTopic(dlq, 1);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> view.readerRestarts() >= 1
                        && view.current());
                deadLetter(producer, dlq, "e2");
                assertTrue(view.current());
                assertTrue(view.alive());
                assertEquals(2, view.statuses(s1).get(0).deadLettered(), "the one before and the one written "
                        + "after the timeout, each once");
            }
            try (DeliveryStatusView once = DeliveryStatusView.start(new StatusSettings(ledger, dlq, "g1", 100, 1_000,
                    Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMillis(100), 2), kafka)) {
                assertTrue(once.current());
                deleteTopic(broker, dlq);
                assertFalse(once.current());
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> !once.alive());
                assertTrue(once.health().contains("given up"), once.health());
                assertEquals(1, once.statuses(s1).get(0).deadLettered(), "what it had read is still answered");
            }
        }
    }

    private static void deadLetter(KafkaProducer<String, String> producer, String dlq, String eventId)
            throws Exception {
        FailedEvent dead = new FailedEvent("s1", new ChangeEvent(eventId, ChangeEvent.ENTITY_UPDATED, "table",
                UUID.randomUUID().toString(), null, "svc.db.t", 0.1, 0.2, "alice", null, 1_000, null, null, null),
                "HTTP 503", FailureSource.SUBSCRIBER, 0, 3, 5_000, "w1");
        producer.send(new ProducerRecord<>(dlq, dead.key(), Serdes.failedEvent().toJson(dead))).get();
    }

    private static void deleteTopic(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            admin.deleteTopics(List.of(topic)).all().get();
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> !admin.listTopics().names().get().contains(topic));
        }
    }
}
