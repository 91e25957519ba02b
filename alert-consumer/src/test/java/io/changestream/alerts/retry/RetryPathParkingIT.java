package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.pipeline.LongRetries;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Decision 2202 on the real broker: a pair handed off for one entity parks only that entity's later pairs of its
 * destination (the others are sent at once) until the retry path settles it; past the tracked-entity bound, or after
 * a hand-off without a key, every pair of the destination parks until they settle; after a source assignment the park
 * checks wait for the retry group's unsettled offsets, and a destination whose partition held some parks until the
 * retry path settles one of its records past them.
 */
class RetryPathParkingIT {

    private final KafkaBroker broker = Brokers.shared();

    private static RetrySettings settings(String retryTopic, String stateTopic, int maxParkedKeys) {
        return new RetrySettings(retryTopic, stateTopic, "g-" + UUID.randomUUID(), Duration.ofSeconds(30), 1_048_576,
                2, 8_000, 1_000, 1, maxParkedKeys, Duration.ofMillis(200), Duration.ofSeconds(1),
                Duration.ofMinutes(1), 20, Duration.ofDays(3), 10_000, 100_000, Duration.ofMillis(200),
                Duration.ofSeconds(20), Duration.ofSeconds(10));
    }

    private static final SubscriptionDestination DESTINATION = new SubscriptionDestination("d1",
            SubscriptionCategory.EXTERNAL, SubscriptionType.WEBHOOK, null);
    private static final EventSubscription SUBSCRIPTION = EventSubscription.builder("s1", "one")
            .destinations(List.of(DESTINATION)).build();

    private static DeliveryRequest request(String eventId) {
        ChangeEvent e = new ChangeEvent(eventId, ChangeEvent.ENTITY_UPDATED, "table", UUID.randomUUID().toString(),
                null, "svc.db.t", 0.1, 0.2, "alice", null, 1_000, null, null, null);
        return new DeliveryRequest(SUBSCRIPTION, DESTINATION, e, null, 1, null);
    }

    private static boolean handOff(RetryPath path, String eventId, String entity, long sourceOffset) {
        return path.handOff(new LongRetries.Handoff(request(eventId), new TopicPartition("changes", 0), sourceOffset,
                "{}", entity, eventId, "g", 1, 1_000, Duration.ofMinutes(5), "HTTP 503", false)).join();
    }

    /** A retry path on its own topics, the destination of {@link #request} and its partition by key. */
    private record Parts(KafkaProducer<String, String> producer, DestinationStates states, RetryPath path,
                         String destination, int home) implements AutoCloseable {
        @Override
        public void close() {
            states.close();
            producer.close();
        }
    }

    private Parts parts(int maxParkedKeys) {
        String retryTopic = "parking-retry-" + UUID.randomUUID();
        String stateTopic = "parking-destinations-" + UUID.randomUUID();
        broker.createTopic(retryTopic, 2);
        broker.createTopic(stateTopic, 1);
        KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
        RetrySettings settings = settings(retryTopic, stateTopic, maxParkedKeys);
        DestinationStates states = new DestinationStates(settings, producer,
                Map.of("bootstrap.servers", broker.bootstrapServers()),
                d -> RetryPath.partitionOf(d, 2), Clock.systemUTC());
        states.start();
        String destination = RetryPath.destinationKey(request("x"));
        return new Parts(producer, states, new RetryPath(settings, producer, states, Map.of(),
                new SimpleMeterRegistry(), Clock.systemUTC()), destination, RetryPath.partitionOf(destination, 2));
    }

    /** The retry path settled every record of the destination handed off on the partition. */
    private static void settleAll(Parts p, String destination, int partition) {
        p.states().drained(destination, partition, p.states().of(destination).on(partition).handedOff());
    }

    @Test
    void onlyTheEntityWithAnUnsettledHandOffParksUntilItIsSettled() {
        try (Parts p = parts(1_000)) {
            RetryPath path = p.path();
            String destination = p.destination();
            assertEquals(Optional.empty(), path.parkReason(request("e0"), "entity-a"), "nothing handed off yet");

            assertTrue(handOff(path, "e1", "entity-a", 1));
            assertTrue(path.parkReason(request("e2"), "entity-a").orElseThrow().contains("entity"),
                    "a later pair of the entity parks behind it");
            assertEquals(Optional.empty(), path.parkReason(request("e3"), "entity-b"),
                    "another entity of the same destination is sent at once");
            assertTrue(path.parkReason(request("e4"), null).isPresent(), "a pair without a key cannot be placed");
            assertTrue(path.backlogged(destination));

            settleAll(p, destination, p.home());
            assertEquals(Optional.empty(), path.parkReason(request("e5"), "entity-a"), "settled: sent again");
            assertFalse(path.backlogged(destination));
        }
    }

    @Test
    void pastTheTrackedEntitiesOrAfterAnUnkeyedHandOffTheWholeDestinationParks() {
        try (Parts p = parts(2)) {
            RetryPath path = p.path();
            String destination = p.destination();
            assertTrue(handOff(path, "e1", "entity-a", 1));
            assertTrue(handOff(path, "e2", "entity-b", 2));
            assertEquals(Optional.empty(), path.parkReason(request("e3"), "entity-z"), "within the bound");
            assertTrue(handOff(path, "e4", "entity-c", 3));
            assertTrue(path.parkReason(request("e5"), "entity-z").isPresent(),
                    "a third entity is past retry.maxParkedKeysPerDestination: all park");
            settleAll(p, destination, p.home());
            assertEquals(Optional.empty(), path.parkReason(request("e6"), "entity-z"), "all settled: sent again");

            assertTrue(handOff(path, "e7", null, 7));
            assertTrue(path.parkReason(request("e8"), "entity-z").isPresent(), "an unkeyed hand-off parks all");
            settleAll(p, destination, p.home());
            assertEquals(Optional.empty(), path.parkReason(request("e9"), "entity-z"));
        }
    }

    @Test
    void afterAnAssignmentTheParkCheckWaitsAndAPreviousOwnersRecordsParkTheDestination() {
        try (Parts p = parts(1_000)) {
            RetryPath path = p.path();
            String destination = p.destination();
            assertTrue(path.caughtUp().isDone());

            CompletableFuture<Map<Integer, Long>> read = new CompletableFuture<>();
            path.catchUp(read);
            assertFalse(path.caughtUp().isDone(), "park checks wait for the retry group's unsettled offsets");
            read.complete(Map.of(p.home(), 41L)); // a previous owner's hand-offs, entities unknown here
            assertTrue(path.caughtUp().isDone());
            assertTrue(path.parkReason(request("e1"), "entity-never-seen").orElseThrow().contains("assignment"));

            path.catchUp(CompletableFuture.completedFuture(Map.of(1 - p.home(), 9L)));
            assertEquals(Optional.empty(), path.parkReason(request("e2"), "entity-never-seen"),
                    "records of another partition (no progress of this destination there) hold nothing back");

            path.catchUp(CompletableFuture.completedFuture(Map.of(p.home(), 41L)));
            p.states().drained(destination, p.home(), 42);
            assertEquals(Optional.empty(), path.parkReason(request("e3"), "entity-never-seen"),
                    "settled past what was unsettled at the assignment");

            path.catchUp(CompletableFuture.failedFuture(new IllegalStateException("admin timed out")));
            assertTrue(path.caughtUp().isDone(), "a failed read does not hold the pipeline");
            assertEquals(Optional.empty(), path.parkReason(request("e4"), "entity-never-seen"),
                    "the previous snapshot stands");
        }
    }
}
