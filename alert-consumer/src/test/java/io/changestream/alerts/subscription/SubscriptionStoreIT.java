package io.changestream.alerts.subscription;

import io.changestream.alerts.filter.ActiveSubscription;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.filter.FilterEvaluationException;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.EventFilterRule;
import io.changestream.topics.model.Effect;
import io.changestream.topics.model.FilteringRules;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SubscriptionStoreIT {

    private static final KafkaBroker BROKER = Brokers.shared();

    private String topic;
    private SubscriptionStore a;
    private SubscriptionStore b;

    @BeforeEach
    void start() {
        topic = "it-subscriptions-" + UUID.randomUUID();
        BROKER.createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
        a = SubscriptionStore.start(SubscriptionStoreSettings.of(topic, BROKER.bootstrapServers()),
                FilterSettings.DEFAULTS);
        b = SubscriptionStore.start(SubscriptionStoreSettings.of(topic, BROKER.bootstrapServers()),
                FilterSettings.DEFAULTS);
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    private static EventSubscription subscription(String name) {
        return EventSubscription.builder(UUID.randomUUID().toString(), name)
                .filteringRules(new FilteringRules(List.of("all"), List.of(), List.of())).build();
    }

    @Test
    void aWriteIsVisibleToTheWriterAtOnceAndToAnotherInstanceWithinASecond() {
        List<SubscriptionChange> seenByB = new CopyOnWriteArrayList<>();
        b.addListener(seenByB::add);
        EventSubscription s = subscription("orders");
        long before = System.nanoTime();
        a.create(s);
        assertEquals(s, a.get(s.id()).orElseThrow().subscription(), "read-your-writes");
        await().atMost(Duration.ofSeconds(1)).until(() -> b.byName("orders").isPresent());
        long visibleMs = (System.nanoTime() - before) / 1_000_000;
        assertTrue(visibleMs < 1_000, "visible on the other instance after " + visibleMs + " ms");
        System.out.println("MEASURED subscription write -> visible on another instance: " + visibleMs + " ms");
        assertEquals(1, seenByB.size());
        assertNull(seenByB.get(0).previous());

        EventSubscription renamed = new EventSubscription(s.id(), "orders-v2", "orders-v2", null, null, null, null,
                false, s.filteringRules(), null, List.of(), null, null, null, null, null, null, 0.2, null, null, null);
        a.update(renamed);
        await().atMost(Duration.ofSeconds(1)).until(() -> b.byName("orders-v2").isPresent());
        assertTrue(b.byName("orders").isEmpty(), "the old name is free");
        assertFalse(b.get(s.id()).orElseThrow().subscription().enabled());

        a.delete(s.id());
        await().atMost(Duration.ofSeconds(1)).until(() -> b.get(s.id()).isEmpty());
        assertTrue(a.list().isEmpty());
    }

    @Test
    void namesAreUnique() {
        a.create(subscription("dup"));
        SubscriptionException e = assertThrows(SubscriptionException.class, () -> a.create(subscription("dup")));
        assertEquals(409, e.status());
        await().atMost(Duration.ofSeconds(1)).until(() -> b.byName("dup").isPresent());
        assertEquals(409, assertThrows(SubscriptionException.class, () -> b.create(subscription("dup"))).status());
        EventSubscription other = a.create(subscription("other"));
        EventSubscription clash = new EventSubscription(other.id(), "dup", "dup", null, null, null, null, null,
                null, null, List.of(), null, null, null, null, null, null, null, null, null, null);
        assertEquals(409, assertThrows(SubscriptionException.class, () -> a.update(clash)).status());
        assertEquals(404, assertThrows(SubscriptionException.class, () -> a.delete("nope")).status());
    }

    @Test
    void aRaceForOneNameLeavesExactlyOneWinner() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<EventSubscription> viaA = pool.submit(() -> a.create(subscription("race")));
            Future<EventSubscription> viaB = pool.submit(() -> b.create(subscription("race")));
            int won = 0;
            for (Future<EventSubscription> f : List.of(viaA, viaB)) {
                try {
                    f.get();
                    won++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertEquals(409, ((SubscriptionException) e.getCause()).status());
                }
            }
            assertEquals(1, won);
            await().atMost(Duration.ofSeconds(2)).until(() -> a.list().size() == 1 && b.list().size() == 1);
            assertEquals(a.byName("race").orElseThrow().id(), b.byName("race").orElseThrow().id());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRecordWithRulesThatDoNotCompileIsKeptAndFailsTyped() {
        EventSubscription broken = EventSubscription.builder(UUID.randomUUID().toString(), "broken")
                .filteringRules(new FilteringRules(List.of("all"), List.of(new EventFilterRule("r", null, null, null,
                        Effect.INCLUDE, "matchAnySource({'table'", null, null, null)), List.of())).build();
        KafkaTestClients.produce(BROKER, List.of(
                new ProducerRecord<>(topic, broken.id(), Serdes.eventSubscription().toJson(broken)),
                new ProducerRecord<>(topic, "garbage", "{not json")));
        await().atMost(Duration.ofSeconds(1)).until(() -> a.get(broken.id()).isPresent());
        ActiveSubscription active = a.get(broken.id()).orElseThrow();
        assertThrows(FilterEvaluationException.class, () -> active.matches(
                new io.changestream.topics.model.ChangeEvent("e", "entityCreated", "table", "t", null, null, null,
                        null, null, null, 1L, null, null, null)));
        assertTrue(a.get("garbage").isEmpty(), "a malformed record is skipped");
    }

    @Test
    void aNewInstanceStartsWithTheWholeView() {
        a.create(subscription("one"));
        a.create(subscription("two"));
        SubscriptionStore c = SubscriptionStore.start(SubscriptionStoreSettings.of(topic,
                BROKER.bootstrapServers()), FilterSettings.DEFAULTS);
        try {
            assertTrue(c.healthy());
            assertEquals(List.of("one", "two"), c.list().stream().map(s -> s.subscription().name()).toList());
        } finally {
            c.close();
        }
        assertFalse(c.healthy(), "a closed store is not ready");
    }

    @Test
    void aMissingTopicIsA503AtStart() {
        SubscriptionStoreSettings missing = new SubscriptionStoreSettings("no-such-topic-" + UUID.randomUUID(),
                Map.of("bootstrap.servers", BROKER.bootstrapServers()),
                Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(5));
        assertEquals(503, assertThrows(SubscriptionException.class,
                () -> SubscriptionStore.start(missing, FilterSettings.DEFAULTS)).status());
    }
}
