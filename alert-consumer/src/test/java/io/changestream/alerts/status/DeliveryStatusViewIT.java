package io.changestream.alerts.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.alerts.subscription.DestinationStatus;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.LedgerCodec;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The status view over records written straight to a real broker: a pair written twice counts once, other groups,
 * reset markers, group progress, filtered-out pairs and unreadable records do not count, a dead letter names its
 * send group (every member shows it), {@code status.maxEntries} bounds what is kept, and disabled wins.
 */
class DeliveryStatusViewIT {

    private static final String GROUP = "g1";
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void countsUniqueNotificationsOfItsGroupPerSendGroupWithinItsBound() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String ledger = "status-ledger-" + suffix;
        String dlq = "status-dlq-" + suffix;
        createTopics(ledger, 2, dlq);
        try (KafkaProducer<String, String> producer = producer()) {
            DeliveryRecord e1 = pair(GROUP, "s1", "e1", DeliveryRecord.DELIVERED, 1, 1_000);
            send(producer, ledger, 0, e1);
            send(producer, ledger, 1, e1); // written again (a retried ack): counts once
            send(producer, ledger, 0, pair(GROUP, "s1", "e2", DeliveryRecord.DELIVERED, 3, 2_000));
            send(producer, ledger, 0, pair("other-group", "s1", "e3", DeliveryRecord.DELIVERED, 1, 9_000));
            send(producer, ledger, 0, pair(GROUP, "s1", "e5", DeliveryRecord.FILTERED_OUT, 0, 9_000));
            send(producer, ledger, 1, new DeliveryRecord(GROUP, "s1", "e4", "WEBHOOK:w1", DeliveryRecord.DELIVERED, 0,
                    9_000, "changes", 1, 4));
            send(producer, ledger, 1, LedgerRecords.resetMarker(GROUP, new TopicPartition("changes", 1), 0, 9_000));
            producer.send(new ProducerRecord<>(ledger, 0, "bad", "{not json")).get();
            FailedEvent dead = new FailedEvent("s1", event("e6"), "retries exhausted (2): HTTP 503",
                    FailureSource.SUBSCRIBER, 0, 3, 5_000, "w1");
            producer.send(new ProducerRecord<>(dlq, dead.key(), Serdes.failedEvent().toJson(dead))).get();
            producer.send(new ProducerRecord<>(dlq, dead.key(), Serdes.failedEvent().toJson(dead))).get();
            send(producer, ledger, 0, pair(GROUP, "s2", "e7", DeliveryRecord.DELIVERED, 1, 6_000));
        }

        EventSubscription s1 = EventSubscription.builder("s1", "one").destinations(List.of(
                webhook("w1", "https://hooks.example.com/a"), webhook("w2", "https://hooks.example.com/a"),
                webhook("w3", "https://hooks.example.com/b"))).build();
        EventSubscription s2 = EventSubscription.builder("s2", "two").destinations(List.of(
                webhook("x1", "https://hooks.example.com/c"))).build();
        StatusSettings settings = new StatusSettings(ledger, dlq, GROUP, 100, 1_000, Duration.ofSeconds(10));
        try (DeliveryStatusView view = DeliveryStatusView.start(settings,
                Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            assertTrue(view.current(), "caught up with the topics");
            List<DestinationStatus> one = view.statuses(s1);
            DestinationStatus w1 = one.get(0);
            assertEquals(2, w1.delivered(), "e1 once, e2; not another group's, a filtered-out pair or progress");
            assertEquals(1, w1.deadLettered(), "the dead letter written twice counts once");
            assertEquals(2, w1.failed(), "e2 needed retries, e6 was dead-lettered");
            assertEquals("retryLimitReached", w1.status(), "the dead letter is newer than the last success");
            assertEquals(2_000L, w1.lastSuccessfulAt());
            assertEquals(5_000L, w1.lastFailedAt());
            assertEquals("retries exhausted (2): HTTP 503", w1.lastFailedReason());
            assertEquals(w1.deadLettered(), one.get(1).deadLettered(), "w2 shares w1's send (same endpoint)");
            assertEquals("retryLimitReached", one.get(1).status());
            DestinationStatus w3 = one.get(2);
            assertEquals(2, w3.delivered());
            assertEquals(0, w3.deadLettered());
            assertEquals("active", w3.status());
            assertEquals(1, view.skipped(), "the unreadable record is skipped");
            assertEquals(1, view.statuses(s2).get(0).delivered());

            EventSubscription off = EventSubscription.builder("s1", "one").enabled(false)
                    .destinations(s1.destinations()).build();
            assertTrue(view.statuses(off).stream().allMatch(d -> d.status().equals("disabled")));

            view.forget("s1");
            assertEquals(0, view.statuses(s1).get(0).delivered(), "a deleted subscription is forgotten");
        }
        // status.maxEntries = 1: s1 (every record before s2's) takes the only entry, s2 is not tracked
        try (DeliveryStatusView bounded = DeliveryStatusView.start(
                new StatusSettings(ledger, dlq, GROUP, 1, 1_000, Duration.ofSeconds(10)),
                Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            assertTrue(bounded.current());
            assertEquals(2, bounded.statuses(s1).get(2).delivered());
            assertEquals(0, bounded.statuses(s2).get(0).delivered(), "beyond status.maxEntries nothing is tracked");
        }
    }

    /**
     * Decision 2201: batches of another instance are read from their bytes, pair by pair; this instance's own
     * batches on the topic are skipped and counted from their acks ({@link DeliveryStatusView#applyOwn}) once.
     */
    @Test
    void countsOtherInstancesBatchesFromTheTopicAndItsOwnFromTheirAcksOnce() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String ledger = "batch-ledger-" + suffix;
        String dlq = "batch-dlq-" + suffix;
        createTopics(ledger, 1, dlq);
        LedgerCodec.Encoder other = new LedgerCodec.Encoder(GROUP, "changes", 0, "g1/other-instance");
        other.add(pair(GROUP, "s1", "e1", DeliveryRecord.DELIVERED, 1, 1_000));
        other.add(pair(GROUP, "s1", "e2", DeliveryRecord.DELIVERED, 2, 2_000));
        other.add(new DeliveryRecord(GROUP, "s1", "e3", "WEBHOOK:w1", DeliveryRecord.SKIPPED, 0, 2_500, "changes", 0,
                1));
        other.add(pair(GROUP, "s1", "e3", DeliveryRecord.DELIVERED, 1, 3_000));
        LedgerCodec.Encoder own = new LedgerCodec.Encoder(GROUP, "changes", 0, "g1/this-instance");
        DeliveryRecord ownPair = pair(GROUP, "s1", "e4", DeliveryRecord.DELIVERED, 1, 4_000);
        own.add(ownPair);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(ledger, 0, "b1", other.bytes())).get();
            producer.send(new ProducerRecord<>(ledger, 0, "b2", own.bytes())).get();
        }
        EventSubscription s1 = EventSubscription.builder("s1", "one").destinations(List.of(
                webhook("w1", "https://hooks.example.com/a"))).build();
        StatusSettings settings = new StatusSettings(ledger, dlq, GROUP, 100, 1_000, Duration.ofSeconds(10));
        try (DeliveryStatusView view = DeliveryStatusView.start(settings,
                Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            view.countOwnWrites("g1/this-instance");
            view.applyOwn(List.of(ownPair)); // its ack
            assertTrue(view.current(), "caught up with the topics");
            DestinationStatus w1 = view.statuses(s1).get(0);
            assertEquals(3, w1.delivered(), "e1, e2 from the other batch, e4 once from its ack; e3 was skipped");
            assertEquals(1, w1.skipped());
            assertEquals(1, w1.failed(), "e2 needed a retry");
            assertEquals(4_000L, w1.lastSuccessfulAt());
            assertEquals(0, view.skipped(), "every batch was readable");
        }
    }

    /**
     * Issue 21: a reason holding a chat webhook's URL (the path is the credential) and Jetty's request line reaches
     * neither {@code alert-dlq} (through the writer) nor {@code /status} (also for a record written before the rule).
     */
    @Test
    void aReasonWithTheWebhookPathReachesNeitherTheDeadLetterTopicNorStatus() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String ledger = "redact-ledger-" + suffix;
        String dlq = "redact-dlq-" + suffix;
        createTopics(ledger, 1, dlq);
        String jetty = "I/O error: java.io.EOFException: HttpConnectionOverHTTP@1(l:/127.0.0.1:1 <-> r:/127.0.0.1:2)"
                + "=>HttpExchange@2{req=HttpRequest[POST /services/T0SECRET/B0SECRET/XXXX HTTP/1.1]@3} via "
                + "https://hooks.slack.com/services/T0SECRET/B0SECRET/XXXX?token=q-secret";
        try (KafkaProducer<String, String> producer = producer()) {
            FailedEvent old = new FailedEvent("s1", event("e1"), jetty, FailureSource.SUBSCRIBER, 0, 1, 1_000, "w1");
            producer.send(new ProducerRecord<>(dlq, old.key(), Serdes.failedEvent().toJson(old))).get();
            new DeadLetterWriter(dlq, producer, Duration.ofSeconds(10), new SimpleMeterRegistry())
                    .write(new FailedEvent("s1", event("e2"), jetty, FailureSource.SUBSCRIBER, 0, 1, 2_000, "w2"));
        }
        List<String> written = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(dlq, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (written.size() < 2 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> written.add(r.value()));
            }
        }
        assertEquals(2, written.size());
        assertTrue(written.get(0).contains("B0SECRET"), "the record written before the rule holds it");
        assertFalse(written.get(1).contains("SECRET") || written.get(1).contains("q-secret"), written.get(1));
        assertTrue(written.get(1).contains("https://hooks.slack.com/********"), written.get(1));

        EventSubscription s1 = EventSubscription.builder("s1", "one").destinations(List.of(
                webhook("w1", "https://hooks.example.com/a"), webhook("w2", "https://hooks.example.com/b"))).build();
        try (DeliveryStatusView view = DeliveryStatusView.start(
                new StatusSettings(ledger, dlq, GROUP, 100, 1_000, Duration.ofSeconds(10)),
                Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            assertTrue(view.current());
            for (DestinationStatus d : view.statuses(s1)) {
                assertEquals(1, d.deadLettered());
                assertFalse(d.lastFailedReason().contains("SECRET") || d.lastFailedReason().contains("q-secret"),
                        d.lastFailedReason());
                assertTrue(d.lastFailedReason().contains("POST /******** HTTP/1.1"), d.lastFailedReason());
            }
        }
    }

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    private void createTopics(String ledger, int ledgerPartitions, String dlq) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(ledger, ledgerPartitions, (short) 1),
                    new NewTopic(dlq, 1, (short) 1))).all().get();
        }
    }

    private static DeliveryRecord pair(String group, String sub, String event, String status, int attempts,
                                       long at) {
        return new DeliveryRecord(group, sub, event, null, status, attempts, at, "changes", 0, 1);
    }

    private static void send(KafkaProducer<String, String> producer, String topic, int partition, DeliveryRecord r)
            throws Exception {
        producer.send(new ProducerRecord<>(topic, partition, LedgerRecords.keyOf(r),
                Serdes.deliveryRecord().toJson(r))).get();
    }

    private static ChangeEvent event(String id) {
        return new ChangeEvent(id, ChangeEvent.ENTITY_UPDATED, "table", UUID.randomUUID().toString(), null,
                "svc.db.t", 0.1, 0.2, "alice", null, 1_000, null, null, null);
    }

    private static SubscriptionDestination webhook(String id, String endpoint) throws Exception {
        return new SubscriptionDestination(id, SubscriptionCategory.EXTERNAL, SubscriptionType.WEBHOOK,
                Json.mapper().readTree("{\"endpoint\": \"" + endpoint + "\"}"));
    }
}
