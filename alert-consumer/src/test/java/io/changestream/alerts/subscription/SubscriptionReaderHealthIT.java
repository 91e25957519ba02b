package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.filter.FilterSettings;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FilteringRules;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 12: a dead subscriptions reader freezes the view while alerting goes on. Now it is restarted with backoff
 * (resuming where the view stands), readiness is false while the view is stale, processing is held back beyond
 * {@code maxStaleness}, and a reader that cannot be restarted fails liveness. Against the real broker; the reader is
 * killed through its test hook or by deleting its topic.
 */
class SubscriptionReaderHealthIT {

    private static final KafkaBroker BROKER = Brokers.shared();

    private static String newTopic() {
        String topic = "it-reader-health-" + UUID.randomUUID();
        BROKER.createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
        return topic;
    }

    private static SubscriptionStoreSettings settings(String topic, Duration restartBackoff, int maxRestarts) {
        return SubscriptionStoreSettings.of(topic, BROKER.bootstrapServers()).withHealth(
                new SubscriptionStoreSettings.ReaderHealth(Duration.ofSeconds(2), Duration.ofSeconds(5),
                        restartBackoff, restartBackoff.multipliedBy(4), maxRestarts));
    }

    private static EventSubscription subscription(String name) {
        return EventSubscription.builder(UUID.randomUUID().toString(), name)
                .filteringRules(new FilteringRules(List.of("all"), List.of(), List.of())).build();
    }

    @Test
    void aKilledReaderIsRestartedAndResumesWhereTheViewStood() {
        String topic = newTopic();
        try (SubscriptionStore store = SubscriptionStore.start(settings(topic, Duration.ofMillis(100), 3),
                FilterSettings.DEFAULTS);
             SubscriptionStore other = SubscriptionStore.start(settings(topic, Duration.ofMillis(100), 3),
                     FilterSettings.DEFAULTS)) {
            store.create(subscription("before"));
            for (int kill = 1; kill <= 2; kill++) {
                store.killReader(new OutOfMemoryError("test hook: reader thread dies"));
                int expected = kill;
                Awaitility.await().atMost(Duration.ofSeconds(20))
                        .until(() -> store.readerRestarts() == expected && store.healthy());
                assertTrue(store.alive());
                other.create(subscription("after-kill-" + kill));
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> store.byName("after-kill-" + expected).isPresent());
            }
            store.create(subscription("written-by-the-restarted-store"));
            assertEquals(4, store.list().size(), "nothing lost or doubled: " + store.list());
            assertTrue(other.byName("written-by-the-restarted-store").isPresent());
        }
    }

    @Test
    void whileTheReaderIsDeadTheViewGoesStaleNotReadyAndProcessingIsHeldBack() {
        String topic = newTopic();
        TestClock clock = TestClock.frozenAt(Instant.now());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (SubscriptionStore store = SubscriptionStore.start(settings(topic, Duration.ofMinutes(10), 3),
                FilterSettings.DEFAULTS, clock)) {
            SubscriptionViewGate gate = new SubscriptionViewGate(store, Duration.ofSeconds(5), clock, meters);
            assertTrue(store.healthy());
            assertTrue(gate.hold().isEmpty());

            store.killReader(new IllegalStateException("test hook: reader thread dies"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !store.healthy());
            assertTrue(store.alive(), "a restart is pending (in 10 minutes)");
            clock.advance(Duration.ofSeconds(3));
            assertFalse(store.healthy(), "stale after 2 s");
            assertTrue(store.health().contains("restarting"), store.health());
            assertTrue(gate.hold().isEmpty(), "within maxStaleness processing goes on");
            clock.advance(Duration.ofSeconds(3));
            SubscriptionViewGate.Hold hold = gate.hold().orElseThrow();
            assertTrue(hold.reason().contains("subscriptions.maxStaleness"), hold.reason());
            assertEquals(clock.instant().plus(SubscriptionViewGate.RECHECK), hold.until());
            assertEquals(1.0, meters.get("changestream.subscriptions.paused.events").counter().count());
        }
    }

    @Test
    void aReaderThatCannotBeRestartedFailsLiveness() throws Exception {
        String topic = newTopic();
        try (SubscriptionStore store = SubscriptionStore.start(settings(topic, Duration.ofMillis(50), 2),
                FilterSettings.DEFAULTS)) {
            store.create(subscription("kept"));
            try (Admin admin = BROKER.admin()) {
                admin.deleteTopics(List.of(topic)).all().get();
            }
            store.killReader(new IllegalStateException("test hook: reader thread dies"));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !store.alive());
            assertFalse(store.healthy());
            assertEquals(2, store.readerRestarts());
            assertTrue(store.health().contains("given up"), store.health());
            assertTrue(store.byName("kept").isPresent(), "the last view is still there to read");
        }
    }
}
