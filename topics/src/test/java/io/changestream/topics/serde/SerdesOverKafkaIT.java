package io.changestream.topics.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.Samples;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.TopicKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The serdes used by real producers and consumers on topics the provisioner created. */
class SerdesOverKafkaIT {

    private static final Duration POLL_BOUND = Duration.ofSeconds(30);

    private static KafkaBroker broker;
    private static TopicCatalog catalog;

    @BeforeAll
    static void provision() {
        broker = Brokers.shared();
        catalog = new TopicCatalog("serde-" + UUID.randomUUID().toString().substring(0, 8) + ".")
                .withReplicationFactor((short) 1);
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
    }

    private static <V> List<ConsumerRecord<String, V>> readAll(String topic, JsonSerde<V> serde, int expected) {
        Map<String, Object> props = new HashMap<>(KafkaTestClients.consumerProps(broker));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "serde-it-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, V>> records = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(props, new StringDeserializer(), serde)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + POLL_BOUND.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    @Test
    void changeEventsTravelThroughKafkaUnchanged() throws Exception {
        List<ChangeEvent> events = new ArrayList<>();
        for (Map.Entry<String, Class<?>> sample : Samples.PLATFORM_FILES.entrySet()) {
            if (sample.getValue() == ChangeEvent.class) {
                events.add(Serdes.changeEvent().fromJson(Samples.text(sample.getKey())));
            }
        }
        String topic = catalog.changes().name();
        try (var producer = new KafkaProducer<>(KafkaTestClients.producerProps(broker), new StringSerializer(),
                Serdes.changeEvent())) {
            for (ChangeEvent event : events) {
                producer.send(new ProducerRecord<>(topic, TopicKeys.change(event), event)).get(30, TimeUnit.SECONDS);
            }
        }
        List<ConsumerRecord<String, ChangeEvent>> records = readAll(topic, Serdes.changeEvent(), events.size());
        assertEquals(events.size(), records.size());
        for (ConsumerRecord<String, ChangeEvent> record : records) {
            assertEquals(record.key(), record.value().entityId());
            assertTrue(events.contains(record.value()), record.value().id());
        }
    }

    @Test
    void subscriptionTombstoneArrivesAsNull() throws Exception {
        String topic = catalog.subscriptions().name();
        EventSubscription subscription =
                Serdes.eventSubscription().fromJson(Samples.text("event-subscription-ui.json"));
        try (var producer = new KafkaProducer<>(KafkaTestClients.producerProps(broker), new StringSerializer(),
                Serdes.eventSubscription())) {
            producer.send(new ProducerRecord<>(topic, subscription.id(), subscription)).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(topic, subscription.id(), null)).get(30, TimeUnit.SECONDS);
        }
        List<ConsumerRecord<String, EventSubscription>> records = readAll(topic, Serdes.eventSubscription(), 2);
        assertEquals(2, records.size());
        assertEquals(subscription, records.get(0).value());
        assertNull(records.get(1).value());
    }

    @Test
    void malformedRecordReachesTheConsumerAsATypedCause() throws Exception {
        String topic = catalog.pipelineStatus().name();
        try (var producer = new KafkaProducer<>(KafkaTestClients.producerProps(broker), new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, "p/r", "{\"pipelineFqn\":\"p\",\"state\":7}"
                    .getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        }
        Map<String, Object> props = new HashMap<>(KafkaTestClients.consumerProps(broker));
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "serde-it-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (var consumer = new KafkaConsumer<>(props, new StringDeserializer(), Serdes.pipelineRunStatus())) {
            consumer.subscribe(List.of(topic));
            RecordDeserializationException e = assertThrows(RecordDeserializationException.class, () -> {
                long deadline = System.nanoTime() + POLL_BOUND.toNanos();
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
            assertEquals(0L, e.offset());
            MalformedRecordException cause = assertInstanceOf(MalformedRecordException.class, e.getCause());
            assertEquals(topic, cause.topic());
            assertTrue(cause.getMessage().contains("PipelineRunStatus"), cause.getMessage());
        }
    }
}
