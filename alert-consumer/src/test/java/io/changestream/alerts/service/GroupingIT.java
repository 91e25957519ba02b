package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13, Alertmanager-style grouping on the real broker: a 5,000-event burst to a subscription grouped by entity
 * type gives one message per group and destination, every member pair settled once in the ledger; a group's next
 * message waits for groupInterval and comes after the first. Waits are driven by a shifted clock, never by sleeping.
 */
class GroupingIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private final KafkaBroker broker = Brokers.shared();

    private static String grouped(String name, String hook, String slack) {
        return grouped(name, AlertTestSupport.webhook("Webhook", hook, null) + ","
                + AlertTestSupport.webhook("Slack", slack, null));
    }

    /** A subscription grouped by entity type (groupWait 10 min) to {@code destinations} (JSON objects). */
    private static String grouped(String name, String destinations) {
        return AlertTestSupport.request(name, "[\"all\"]", "[]", "[" + destinations + "]", 3)
                .replace("\"provider\": \"user\"", "\"provider\": \"user\", \"grouping\": {\"groupBy\": "
                        + "[\"entityType\"], \"groupWait\": \"10m\", \"groupInterval\": \"5m\"}");
    }

    /** A test's provisioned namespace, its clock (from now) and its settings (a fast digest tick). */
    private record Setup(TopicCatalog catalog, TestClock clock, Map<String, String> settings) {
    }

    private Setup setup(String name, int partitions) {
        String ns = AlertTestSupport.namespace(name);
        TopicCatalog catalog = AlertTestSupport.catalog(ns, partitions);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("digest.tick", "PT0.2S");
        return new Setup(catalog, TestClock.runningFrom(Instant.now()), settings);
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
        Setup setup = setup("grouping", 3);
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        Map<String, String> settings = setup.settings();
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

    /**
     * Issue 23 (decision 2301): a grouped message's destination whose roles select nobody (Owners of events that name
     * no owner) is settled without sending. {@code /status} says {@code skipped} for it, not {@code delivered}, while
     * the webhook that got the message counts it as delivered.
     */
    @Test
    void aGroupedMessageToRolesThatSelectNobodyCountsAsSkippedNotDelivered() {
        Setup setup = setup("grouping-skip", 1);
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        Map<String, String> settings = AlertTestSupport.smtp(setup.settings(), SMTP.getSmtp().getPort());
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(settings), clock)) {
            String id = AlertTestSupport.create(service.httpPort(), grouped("owners", AlertTestSupport.webhook(
                    "Webhook", receiver.url("/hook"), null) + ", {\"category\": \"Owners\", \"type\": \"Email\", "
                    + "\"config\": {}}"));
            AlertTestSupport.produce(broker, catalog.changes().name(), burst("table", 5));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> collected(service) == 5);
            clock.advance(Duration.ofMinutes(11));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/hook").size() == 1);
            Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode email = destination(service, id, "Email");
                assertEquals(1, email.path("skipped").asLong(), "the message was settled unsent to nobody: " + email);
                assertEquals(0, email.path("delivered").asLong(), "nothing was sent there: " + email);
                JsonNode hook = destination(service, id, "Webhook");
                assertEquals(1, hook.path("delivered").asLong(), "the webhook got the message: " + hook);
                assertEquals(0, hook.path("skipped").asLong(), hook.toString());
            });
            assertEquals(0, SMTP.getReceivedMessages().length, "nobody was mailed");
        }
    }

    /** The {@code /status} entry of the subscription's destination of {@code type}, as a user reads it. */
    private static JsonNode destination(AlertService service, String id, String type) {
        AlertTestSupport.Answer answer = AlertTestSupport.call(service.httpPort(), "GET",
                "/api/v1/events/subscriptions/" + id + "/status", null);
        assertEquals(200, answer.status(), answer.body());
        for (JsonNode d : answer.json().get("destinations")) {
            if (type.equals(d.path("type").asText())) {
                return d;
            }
        }
        throw new AssertionError("no " + type + " destination in " + answer.body());
    }

    @Test
    void beyondMaxWindowsTheOldestGroupIsSentEarly() {
        Setup setup = setup("grouping-bound", 1);
        TopicCatalog catalog = setup.catalog();
        TestClock clock = setup.clock();
        Map<String, String> settings = setup.settings();
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
