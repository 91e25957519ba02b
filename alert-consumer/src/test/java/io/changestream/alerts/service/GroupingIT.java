package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.digest.DigestCollector;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.TestClock;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, Alertmanager-style grouping on the real broker: a 5,000-event burst to a subscription grouped by entity
 * type gives one message per group and destination, every member pair settled once in the ledger; a group's next
 * message waits for groupInterval and comes after the first. Waits are driven by a shifted clock, never by sleeping.
 */
class GroupingIT {

    private final KafkaBroker broker = Brokers.shared();

    private static String grouped(String name, String hook, String slack) {
        return AlertTestSupport.request(name, "[\"all\"]", "[]", "[" + AlertTestSupport.webhook("Webhook", hook, null)
                + "," + AlertTestSupport.webhook("Slack", slack, null) + "]", 3)
                .replace("\"provider\": \"user\"", "\"provider\": \"user\", \"grouping\": {\"groupBy\": "
                        + "[\"entityType\"], \"groupWait\": \"10m\", \"groupInterval\": \"5m\"}");
    }

    private static double collected(AlertService service) {
        return service.meters().counter("changestream.alert.digest.entries").count();
    }

    private static List<ChangeEvent> burst(String type, int n) {
        List<ChangeEvent> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, type, type + "-" + (i % 200),
                    "svc.db." + type + i));
        }
        return out;
    }

    @Test
    void aBurstWithGroupingGivesOneMessagePerGroupEachMemberSettledOnce() {
        String ns = AlertTestSupport.namespace("grouping");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        TestClock clock = TestClock.runningFrom(Instant.now());
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("digest.tick", "PT0.2S");
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(settings), clock)) {
            String bad = grouped("bad", receiver.url("/x"), receiver.url("/y")).replace("[\"entityType\"]",
                    "[\"entityType\", \"colour\"]");
            AlertTestSupport.Answer refused = AlertTestSupport.call(service.httpPort(), "POST",
                    "/api/v1/events/subscriptions", bad);
            assertEquals(400, refused.status(), refused.body());
            assertTrue(refused.body().contains("grouping.groupBy[1]"), refused.body());

            String id = AlertTestSupport.create(service.httpPort(), grouped("bulk-import", receiver.url("/hook"),
                    receiver.url("/slack")));
            List<ChangeEvent> events = new ArrayList<>(burst("table", 2500));
            events.addAll(burst("topic", 1500));
            events.addAll(burst("dashboard", 1000));
            AlertTestSupport.produce(broker, catalog.changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(180)).until(() -> collected(service) == 5000);
            assertEquals(0, receiver.all().size(), "nothing before groupWait");

            clock.advance(Duration.ofMinutes(11));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/slack").size() == 3
                    && receiver.hits("/hook").size() == 3);
            Set<String> titles = receiver.hits("/slack").stream().map(h -> h.body().get("text").asText())
                    .collect(Collectors.toSet());
            assertEquals(Set.of("bulk-import [entityType=table]: 2500 changes",
                    "bulk-import [entityType=topic]: 1500 changes",
                    "bulk-import [entityType=dashboard]: 1000 changes"), titles);
            receiver.hits("/hook").forEach(h -> assertEquals(20, h.body().size(), "top 20 listed: " + h.raw()));
            // a message is settled in the ledger after its receiver answered: wait for the third settlement
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> DigestIT.ledger(catalog, id)
                    .getOrDefault(DeliveryRecord.DELIVERED, 0) >= 3);
            Map<String, Integer> ledger = DigestIT.ledger(catalog, id);
            assertEquals(5000, ledger.get(DigestCollector.COLLECTED), "every member pair settled once: " + ledger);
            assertEquals(3, ledger.get(DeliveryRecord.DELIVERED), "one settled message per group: " + ledger);

            // the table group's next members wait for groupInterval after its message, and come after it
            AlertTestSupport.produce(broker, catalog.changes().name(), burst("table", 10));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(service) == 5010);
            clock.advance(Duration.ofMinutes(1));
            Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10))
                    .until(() -> receiver.hits("/slack").size() == 3);
            clock.advance(Duration.ofMinutes(5));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/slack").size() == 4);
            assertEquals("bulk-import [entityType=table]: 10 changes",
                    receiver.hits("/slack").get(3).body().get("text").asText());
            assertEquals(4, receiver.hits("/hook").size());
        }
    }

    @Test
    void beyondMaxWindowsTheOldestGroupIsSentEarly() {
        String ns = AlertTestSupport.namespace("grouping-bound");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        TestClock clock = TestClock.runningFrom(Instant.now());
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("digest.tick", "PT0.2S");
        settings.put("digest.maxWindows", "1");
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(settings), clock)) {
            AlertTestSupport.create(service.httpPort(), grouped("bounded", receiver.url("/hook"),
                    receiver.url("/slack")));
            AlertTestSupport.produce(broker, catalog.changes().name(), burst("table", 3));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(service) == 3);
            AlertTestSupport.produce(broker, catalog.changes().name(), burst("topic", 2));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/slack").size() == 1);
            assertEquals("bounded [entityType=table]: 3 changes",
                    receiver.hits("/slack").get(0).body().get("text").asText(), "the oldest window, before groupWait");
            assertEquals(1.0, service.meters().counter("changestream.alert.digest.early.seals").count());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(service) == 5);
            clock.advance(Duration.ofMinutes(11));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/slack").size() == 2);
            assertEquals("bounded [entityType=topic]: 2 changes",
                    receiver.hits("/slack").get(1).body().get("text").asText());
        }
    }
}
