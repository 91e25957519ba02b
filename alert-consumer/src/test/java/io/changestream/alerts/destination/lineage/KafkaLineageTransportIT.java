package io.changestream.alerts.destination.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

class KafkaLineageTransportIT {

    private static final KafkaBroker BROKER = Brokers.shared();

    @Test
    void runEventsLandOnTheTopicKeyedByJob() throws Exception {
        String topic = "it-openlineage-" + UUID.randomUUID();
        BROKER.createTopic(topic, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(KafkaTestClients.producerProps(BROKER))) {
            OpenLineageDestination lineage = new OpenLineageDestination(
                    LineageSettings.DEFAULTS.withKafkaTopics(java.util.Set.of(topic)), new HttpSender(HttpSettings.DEFAULTS, Clock.systemUTC()), producer);
            SubscriptionDestination d = new SubscriptionDestination("ol", SubscriptionCategory.EXTERNAL,
                    SubscriptionType.OPEN_LINEAGE,
                    Json.mapper().readTree("{\"transport\":\"kafka\",\"topic\":\"" + topic + "\"}"));
            EventSubscription sub = EventSubscription.builder("s", "lineage").destinations(List.of(d)).build();
            PipelineRunStatus failed = new PipelineRunStatus("svc.ingest", "run-1", PipelineState.FAILED, 1L, 2L, 3L);
            PipelineRunStatus stopped = new PipelineRunStatus("svc.ingest", "run-2", PipelineState.STOPPED, 1L, 2L,
                    3L);

            List<DeliveryResult> results = lineage.deliverAll(List.of(DeliveryRequest.ofRun(sub, d, failed, 1),
                    DeliveryRequest.ofRun(sub, d, stopped, 1)));

            assertTrue(results.stream().allMatch(DeliveryResult::isDelivered), results.toString());
            List<ConsumerRecord<String, String>> got = KafkaTestClients.consume(BROKER, topic, 2,
                    Duration.ofSeconds(30));
            assertEquals("openmetadata/svc.ingest", got.get(0).key());
            OpenLineage.RunEvent first = OpenLineageClientUtils.fromJson(got.get(0).value(),
                    new TypeReference<OpenLineage.RunEvent>() { });
            assertEquals(OpenLineage.RunEvent.EventType.FAIL, first.getEventType());
            OpenLineage.RunEvent second = OpenLineageClientUtils.fromJson(got.get(1).value(),
                    new TypeReference<OpenLineage.RunEvent>() { });
            assertEquals(OpenLineage.RunEvent.EventType.ABORT, second.getEventType());
        }
    }

    /** Issue 12: a subscription could make the service's own producer write into any topic, a catalog one included. */
    @Test
    void aTopicOutsideTheAllowlistIsRefusedAndNothingIsWritten() throws Exception {
        String allowed = "it-openlineage-" + UUID.randomUUID();
        String catalogTopic = "it-ol-" + UUID.randomUUID() + ".subscriptions";
        BROKER.createTopic(catalogTopic, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(KafkaTestClients.producerProps(BROKER))) {
            OpenLineageDestination lineage = new OpenLineageDestination(
                    LineageSettings.DEFAULTS.withKafkaTopics(java.util.Set.of(allowed)),
                    new HttpSender(HttpSettings.DEFAULTS, Clock.systemUTC()), producer);
            SubscriptionDestination d = new SubscriptionDestination("ol", SubscriptionCategory.EXTERNAL,
                    SubscriptionType.OPEN_LINEAGE,
                    Json.mapper().readTree("{\"transport\":\"kafka\",\"topic\":\"" + catalogTopic + "\"}"));
            io.changestream.alerts.destination.DestinationConfigException refused = org.junit.jupiter.api.Assertions
                    .assertThrows(io.changestream.alerts.destination.DestinationConfigException.class,
                            () -> lineage.transport(d));
            assertEquals("config.topic", refused.field());
            assertTrue(refused.getMessage().contains(allowed), refused.getMessage());

            EventSubscription sub = EventSubscription.builder("s", "lineage").destinations(List.of(d)).build();
            PipelineRunStatus failed = new PipelineRunStatus("svc.ingest", "run-1", PipelineState.FAILED, 1L, 2L, 3L);
            DeliveryResult result = lineage.deliverAll(List.of(DeliveryRequest.ofRun(sub, d, failed, 1))).get(0);
            assertEquals(DeliveryResult.Kind.PERMANENT, result.outcome(), "a stored record is refused at send too");
            producer.flush();
            try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(java.util.Map.of(
                    "bootstrap.servers", BROKER.bootstrapServers(),
                    "key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName(),
                    "value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName()))) {
                var partition = new org.apache.kafka.common.TopicPartition(catalogTopic, 0);
                assertEquals(0L, consumer.endOffsets(List.of(partition)).get(partition), "nothing written");
            }
        }
    }
}
