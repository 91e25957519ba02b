package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.digest.DigestCollector;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.TestClock;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.serde.LedgerCodec;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, Scheduled subscriptions on the real broker: the digest of a window is durable on {@code alert-digest},
 * so a service closed mid-window and started again sends it once with every event, and two instances of one group
 * send one digest. Ticks are driven by a shifted clock (an hourly cron), never by sleeping.
 */
class DigestIT {

    private static final String HOOK = "/digest";
    private final KafkaBroker broker = Brokers.shared();

    private static String scheduled(String name, String url) {
        return AlertTestSupport.request(name, "[\"all\"]", "[]", "[" + AlertTestSupport.webhook("Webhook", url, null)
                + "]", 3).replace("{\"triggerType\": \"RealTime\"}", "{\"triggerType\": \"Scheduled\", "
                + "\"scheduleInfo\": \"Custom\", \"cronExpression\": \"0 0 * * * ?\"}");
    }

    /** A test's provisioned namespace, its clock and the settings of its instances. */
    private record Setup(TopicCatalog catalog, TestClock clock, AlertServiceConfig config) {
    }

    /**
     * A fresh namespace (three partitions of changes, provisioned), a clock one minute past the next full hour (the
     * next tick is 59 minutes away, whatever the wall clock says) and a fast digest tick.
     */
    private Setup setup(String name) {
        String ns = AlertTestSupport.namespace(name);
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> s = AlertTestSupport.settings(broker, ns, ns + "group");
        s.put("digest.tick", "PT0.2S");
        s.put("digest.topChanges", "100");
        return new Setup(catalog, TestClock.runningFrom(Instant.now().truncatedTo(ChronoUnit.HOURS)
                .plus(Duration.ofMinutes(61))), AlertTestSupport.config(s));
    }

    /** Moves the clock over the next tick and waits (at most a minute) until the receiver holds {@code hits}. */
    private static void tickUntil(TestClock clock, Receiver receiver, int hits) {
        clock.advance(Duration.ofHours(1));
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits(HOOK).size() >= hits);
    }

    private static double collected(AlertService service) {
        return service.meters().counter("changestream.alert.digest.entries").count();
    }

    private static List<ChangeEvent> events(int n, String prefix) {
        return IntStream.range(0, n).mapToObj(i -> AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                prefix + "-" + i, "svc.db.s." + prefix + i)).toList();
    }

    private static Set<String> ids(JsonNode array) {
        Set<String> ids = new HashSet<>();
        array.forEach(e -> ids.add(e.get("id").asText()));
        return ids;
    }

    private static Set<String> ids(List<ChangeEvent> events) {
        Set<String> ids = new HashSet<>();
        events.forEach(e -> ids.add(e.id()));
        return ids;
    }

    @Test
    void aDigestAcrossARestartArrivesOnceWithAllItsEvents() {
        Setup setup = setup("digest-restart");
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        AlertServiceConfig config = setup.config();
        List<ChangeEvent> before = events(25, "before");
        List<ChangeEvent> after = events(15, "after");
        try (Receiver receiver = new Receiver()) {
            String subscriptionId;
            try (AlertService first = AlertService.start(config, clock)) {
                subscriptionId = AlertTestSupport.create(first.httpPort(), scheduled("hourly", receiver.url(HOOK)));
                AlertTestSupport.produce(broker, catalog.changes().name(), before);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(first) == before.size());
            } // closed mid-window: nothing was sent yet
            assertEquals(0, receiver.hits(HOOK).size(), "a Scheduled subscription sends nothing before its tick");
            try (AlertService second = AlertService.start(config, clock)) {
                AlertTestSupport.produce(broker, catalog.changes().name(), after);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(second) == after.size());
                assertEquals(0, receiver.hits(HOOK).size());
                tickUntil(clock, receiver, 1); // over the tick
            }
            Receiver.Hit digest = receiver.hits(HOOK).get(0);
            assertTrue(digest.body().isArray(), "a webhook digest is a JSON array: " + digest.raw());
            Set<String> expected = ids(before);
            expected.addAll(ids(after));
            assertEquals(expected, ids(digest.body()), "every event of the window, across the restart");
            assertEquals(40, digest.body().size(), "each once");
            assertTrue(digest.idempotencyKey().startsWith(subscriptionId + ":digest-"), digest.idempotencyKey());

            // after another restart the next tick carries only what came since: the first digest is not sent again
            try (AlertService third = AlertService.start(config, clock)) {
                List<ChangeEvent> later = events(1, "later");
                AlertTestSupport.produce(broker, catalog.changes().name(), later);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(third) == 1);
                tickUntil(clock, receiver, 2);
                assertEquals(ids(later), ids(receiver.hits(HOOK).get(1).body()));
                // a digest is settled in the ledger after its receiver answered
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger(catalog, subscriptionId)
                        .getOrDefault(DeliveryRecord.DELIVERED, 0) >= 2);
            }
            assertEquals(2, receiver.hits(HOOK).size(), "one message per tick");
            Map<String, Integer> ledger = ledger(catalog, subscriptionId);
            assertEquals(41, ledger.getOrDefault(DigestCollector.COLLECTED, 0), "every pair settled once: " + ledger);
            assertTrue(ledger.getOrDefault(DeliveryRecord.DELIVERED, 0) >= 2, "both digests settled: " + ledger);
        }
    }

    @Test
    void twoInstancesOfOneGroupSendOneDigest() {
        Setup setup = setup("digest-two");
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        AlertServiceConfig config = setup.config();
        List<ChangeEvent> events = events(30, "pair");
        try (Receiver receiver = new Receiver();
             AlertService a = AlertService.start(config, clock);
             AlertService b = AlertService.start(config, clock)) {
            AlertTestSupport.create(a.httpPort(), scheduled("hourly-two", receiver.url(HOOK)));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> b.store().list().size() == 1);
            AlertTestSupport.produce(broker, catalog.changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(a) + collected(b) == 30);
            tickUntil(clock, receiver, 1);
            // the next tick proves no second owner held the same window: it carries only the new event
            List<ChangeEvent> next = events(1, "next");
            AlertTestSupport.produce(broker, catalog.changes().name(), next);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(a) + collected(b) == 31);
            tickUntil(clock, receiver, 2);
            assertEquals(ids(events), ids(receiver.hits(HOOK).get(0).body()));
            assertEquals(ids(next), ids(receiver.hits(HOOK).get(1).body()));
            assertEquals(2, receiver.hits(HOOK).size());
        }
    }

    @Test
    void aDigestSealedButNotYetAcceptedIsSentOnceUnderTheSameIdAfterARestart() {
        Setup setup = setup("digest-sealed");
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        AlertServiceConfig config = setup.config();
        List<ChangeEvent> events = events(12, "sealed");
        try (Receiver receiver = new Receiver()) {
            receiver.always(HOOK, 503);
            String subscriptionId;
            try (AlertService first = AlertService.start(config, clock)) {
                subscriptionId = AlertTestSupport.create(first.httpPort(), scheduled("hourly-sealed",
                        receiver.url(HOOK)));
                AlertTestSupport.produce(broker, catalog.changes().name(), events);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(first) == events.size());
                tickUntil(clock, receiver, 1);
            } // the window is sealed, its send refused: the service stops while it waits to retry
            String key = receiver.hits(HOOK).get(0).idempotencyKey();
            receiver.always(HOOK, 200);
            int refused = receiver.hits(HOOK).size();
            try (AlertService second = AlertService.start(config, clock)) {
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits(HOOK).size() > refused);
                List<ChangeEvent> later = events(1, "after-sealed");
                AlertTestSupport.produce(broker, catalog.changes().name(), later);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(second) == 1);
                clock.advance(Duration.ofHours(1));
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits(HOOK).size()
                        == refused + 2);
                List<Receiver.Hit> accepted = receiver.hits(HOOK).subList(refused, refused + 2);
                assertEquals(key, accepted.get(0).idempotencyKey(), "the same message id as the refused attempt");
                assertEquals(ids(events), ids(accepted.get(0).body()));
                assertEquals(ids(later), ids(accepted.get(1).body()), "the sealed window was not sent again");
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ledger(catalog, subscriptionId)
                        .getOrDefault(DeliveryRecord.DELIVERED, 0) >= 2);
            }
            assertEquals(refused + 2, receiver.hits(HOOK).size());
            assertEquals(2, ledger(catalog, subscriptionId).get(DeliveryRecord.DELIVERED));
        }
    }

    /** The ledger records of a subscription, counted by status (this group's). */
    static Map<String, Integer> ledger(TopicCatalog catalog, String subscriptionId) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Brokers.shared().bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(catalog.alertLedger().name()).forEach(p -> parts.add(new TopicPartition(p.topic(),
                    p.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    for (DeliveryRecord d : LedgerCodec.decode(r.topic(), r.value()).records()) {
                        if (d.subscriptionId().equals(subscriptionId) && d.destinationId() == null) {
                            counts.merge(d.status(), 1, Integer::sum);
                        }
                    }
                }
            }
        }
        return counts;
    }
}
