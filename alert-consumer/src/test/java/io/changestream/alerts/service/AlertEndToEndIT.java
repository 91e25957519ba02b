package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.alerts.destination.FailureReason;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.Counter;
import jakarta.mail.Message;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two alert service instances of one group on the real broker, subscriptions created through the REST API, events
 * produced to {@code changes}: every matching (subscription, event) is delivered exactly once (graceful run: no
 * duplicates), non-matching never, payloads and signatures are right, e-mail goes once to the union of receivers,
 * the status, summary and runtime endpoints answer behind the token, and secrets stay out of responses and metrics.
 */
class AlertEndToEndIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private static final int EVENTS = 240;
    private static final String SECRET = "webhook-secret-do-not-leak";
    private final KafkaBroker broker = Brokers.shared();

    /** One instance's settings: its runtime consumers carry its own client id (in the broker's and our logs). */
    private static Map<String, String> instance(Map<String, String> settings, String name) {
        Map<String, String> own = new java.util.HashMap<>(settings);
        own.put(AlertServiceConfig.RUNTIME_KAFKA_PREFIX + "client.id", "instance-" + name);
        return own;
    }

    /**
     * Every event reached the receiver, and once, except where an attempt of this destination type went unanswered
     * (its timeout, a lost connection): the receiver may have had that request, so it is sent again, with the same
     * Idempotency-Key. A loaded machine gets such re-sends; a re-send without an unanswered attempt fails.
     */
    private static void assertResentOnlyUnanswered(List<Receiver.Hit> hits, int events, SubscriptionType type,
                                                   AlertService... services) {
        long keys = hits.stream().map(Receiver.Hit::idempotencyKey).distinct().count();
        assertEquals(events, keys, () -> type + ": every event; " + paths(services));
        List<String> unansweredReasons = List.of(FailureReason.TIMEOUT.label(), FailureReason.NETWORK.label());
        long unanswered = (long) Stream.of(services).flatMap(s -> s.meters().find("changestream.alert.deliveries")
                        .tag("type", type.name()).counters().stream())
                .filter(c -> unansweredReasons.contains(c.getId().getTag("reason")))
                .mapToDouble(Counter::count).sum();
        long resent = hits.size() - keys;
        assertTrue(resent <= unanswered, () -> type + ": " + resent + " re-sent, " + unanswered
                + " attempts unanswered; " + paths(services));
    }

    /** The delivered events of a subscription's summaries, added over the instances. */
    private static long summed(String subscription, AlertService... services) throws Exception {
        long summed = 0;
        for (AlertService s : services) {
            summed += call(s.httpPort(), "GET", "/api/v1/events/subscriptions/" + subscription + "/summary", null)
                    .json().get("deliveredEvents").asLong();
        }
        return summed;
    }

    /** Per instance, how its deliveries went (first path, retry path), for a failing assertion's message. */
    private static String paths(AlertService... services) {
        StringBuilder out = new StringBuilder();
        for (AlertService s : services) {
            out.append(s.runtime().status().partitions()).append(':');
            for (String meter : List.of("changestream.alert.deliveries", "changestream.alert.retry.handoffs",
                    "changestream.alert.retry.settled")) {
                s.meters().find(meter).counters().forEach(c -> out.append(' ').append(c.getId().getName())
                        .append(c.getId().getTags()).append('=').append((long) c.count()));
            }
            out.append("; ");
        }
        return out.toString();
    }

    @Test
    void twoInstancesDeliverEveryMatchingEventOnceAndNothingElse() throws Exception {
        String ns = AlertTestSupport.namespace("e2e");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 6);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
        // the Admins e-mail resolves the platform's admins (here c@cs.test, already listed) through its API
        PlatformStandIn platform = new PlatformStandIn();
        platform.user("carol", "c@cs.test", true);
        settings.put("destinations.platformUrl", platform.url().toString());
        settings.put("destinations.platform.bearerToken", PlatformStandIn.TOKEN);
        try (platform; Receiver receiver = new Receiver();
             AlertService a = AlertService.start(AlertTestSupport.config(instance(settings, "a")));
             AlertService b = AlertService.start(AlertTestSupport.config(instance(settings, "b")))) {
            String tables = create(a.httpPort(), request("tables", "[\"table\"]", """
                    [{"name": "filterByEventType", "effect": "include",
                      "arguments": [{"name": "eventTypeList", "input": ["entityCreated", "entityUpdated"]}]}]""",
                    "[" + webhook("Webhook", receiver.url("/tables"), SECRET) + "]", 3));
            String everything = create(a.httpPort(), request("everything", "[\"all\"]", "[]",
                    "[" + webhook("Slack", receiver.url("/slack"), null) + ","
                            + webhook("MsTeams", receiver.url("/teams"), null) + "]", 3));
            String mail = create(b.httpPort(), request("dashboards", "[\"dashboard\"]", "[]", """
                    [{"category": "External", "type": "Email", "config": {"receivers": ["a@cs.test", "b@cs.test"]}},
                     {"category": "Admins", "type": "Email", "config": {"receivers": ["b@cs.test", "c@cs.test"]}}]
                    """, 3));
            // each instance's view sees what the other one wrote
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                    call(a.httpPort(), "GET", "/api/v1/events/subscriptions/" + mail, null).status() == 200
                            && call(b.httpPort(), "GET", "/api/v1/events/subscriptions/" + tables, null).status() == 200);

            // both instances own changes partitions before anything is produced (the group has settled)
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> List.of(a, b).stream().allMatch(s ->
                    s.runtime().status().partitions().stream()
                            .anyMatch(p -> p.topic().equals(catalog.changes().name()))));
            List<ChangeEvent> events = new ArrayList<>();
            String[] types = {"table", "dashboard", "topic"};
            String[] eventTypes = {ChangeEvent.ENTITY_CREATED, ChangeEvent.ENTITY_UPDATED, ChangeEvent.ENTITY_DELETED,
                    ChangeEvent.ENTITY_SOFT_DELETED};
            for (int i = 0; i < EVENTS; i++) {
                String entityId = java.util.UUID.nameUUIDFromBytes(("entity-" + (i % 40)).getBytes()).toString();
                events.add(AlertTestSupport.event(eventTypes[i % eventTypes.length], types[i % types.length], entityId,
                        "svc.db." + types[i % types.length] + (i % 40)));
            }
            AlertTestSupport.produce(broker, catalog.changes().name(), events);
            Set<String> wantTables = events.stream().filter(e -> e.entityType().equals("table")
                            && (e.eventType().equals(ChangeEvent.ENTITY_CREATED)
                            || e.eventType().equals(ChangeEvent.ENTITY_UPDATED)))
                    .map(ChangeEvent::id).collect(Collectors.toSet());
            long dashboards = events.stream().filter(e -> e.entityType().equals("dashboard")).count();

            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                    receiver.hits("/tables").size() >= wantTables.size()
                            && receiver.hits("/slack").size() >= EVENTS && receiver.hits("/teams").size() >= EVENTS
                            && SMTP.getReceivedMessages().length >= dashboards * 3);
            // let anything extra (a duplicate, a non-matching event) arrive before counting
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);

            List<Receiver.Hit> tableHits = receiver.hits("/tables");
            assertResentOnlyUnanswered(tableHits, wantTables.size(), SubscriptionType.WEBHOOK, a, b);
            assertEquals(wantTables, tableHits.stream().map(h -> h.body().get("id").asText())
                    .collect(Collectors.toSet()));
            Map<String, ChangeEvent> byId = events.stream().collect(Collectors.toMap(ChangeEvent::id, e -> e));
            for (Receiver.Hit hit : tableHits) {
                ChangeEvent sent = byId.get(hit.body().get("id").asText());
                assertEquals(tables + ":" + sent.id(), hit.idempotencyKey());
                assertEquals(sent.entityId(), hit.body().get("entityId").asText());
                assertEquals(sent.entityFullyQualifiedName(), hit.body().get("entityFullyQualifiedName").asText());
                assertEquals(tables, hit.body().get("subscriptionId").asText());
                assertEquals("tables", hit.body().get("subscriptionName").asText());
                assertEquals("sha256=" + WebhookDestination.hmacSha256Hex(SECRET,
                        hit.raw().getBytes(StandardCharsets.UTF_8)), hit.signature());
            }
            for (String path : List.of("/slack", "/teams")) {
                List<Receiver.Hit> hits = receiver.hits(path);
                assertResentOnlyUnanswered(hits, EVENTS, path.equals("/slack") ? SubscriptionType.SLACK
                        : SubscriptionType.MS_TEAMS, a, b);
                assertTrue(hits.stream().allMatch(h -> h.idempotencyKey().startsWith(everything + ":")));
            }
            MimeMessage[] mails = SMTP.getReceivedMessages();
            assertEquals(dashboards * 3, mails.length, "one message per dashboard event to the union a, b, c");
            Set<String> recipients = new HashSet<>();
            for (MimeMessage m : mails) {
                for (var r : m.getRecipients(Message.RecipientType.TO)) {
                    recipients.add(r.toString());
                }
            }
            assertEquals(Set.of("a@cs.test", "b@cs.test", "c@cs.test"), recipients);

            // both instances took part (each processed the events of its partitions; a pair may settle on the
            // other one's retry path), and the per-subscription views add up
            for (AlertService s : List.of(a, b)) {
                assertTrue(s.meters().find("changestream.alert.processing").timers().stream()
                        .mapToLong(t -> t.count()).sum() > 0, () -> "both instances worked; " + paths(a, b));
            }
            for (AlertService s : List.of(a, b)) {
                JsonNode status = call(s.httpPort(), "GET", "/api/v1/events/subscriptions/" + tables + "/status",
                        null).json();
                long statusDelivered = status.findValues("delivered").stream().mapToLong(JsonNode::asLong).sum();
                assertEquals(wantTables.size(), statusDelivered, "the group-wide status of each instance counts all");
            }
            // a summary counts a pair once its ledger record is acked, which may follow the receiver's answer
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> summed(tables, a, b) >= wantTables.size());
            assertEquals(wantTables.size(), summed(tables, a, b), () -> "summaries of both instances add up to the "
                    + "deliveries; " + paths(a, b));

            // health is open; ready while the runtime runs and the subscription view is healthy
            assertEquals(200, call(a.httpPort(), "GET", "/health/live", null, null).status());
            assertEquals(200, call(b.httpPort(), "GET", "/health/ready", null, null).status());

            // the runtime view, behind the token
            AlertTestSupport.Answer runtime = call(a.httpPort(), "GET", AlertHttpServer.RUNTIME_STATUS, null);
            assertEquals(200, runtime.status());
            assertEquals("RUNNING", runtime.json().get("state").asText());
            assertTrue(runtime.json().get("partitions").size() > 0);
            assertEquals(401, call(a.httpPort(), "GET", AlertHttpServer.RUNTIME_STATUS, null, null).status());
            assertEquals(401, call(a.httpPort(), "GET", "/api/v1/events/subscriptions", null, null).status());
            assertEquals(401, call(a.httpPort(), "GET", "/api/v1/events/subscriptions/" + tables + "/summary",
                    null, "wrong-token-0123456789").status());

            // secrets never leave
            String listed = call(b.httpPort(), "GET", "/api/v1/events/subscriptions", null).body();
            assertTrue(listed.contains("tables"));
            assertFalse(listed.contains(SECRET), "the webhook secret is masked in responses");
            String metrics = call(a.httpPort(), "GET", "/metrics", null, null).body();
            assertFalse(metrics.contains(SECRET) || metrics.contains(AlertTestSupport.TOKEN));
            assertFalse(a.toString().contains(AlertTestSupport.TOKEN));
            assertTrue(metrics.contains("changestream_alert_ledger_writes_total"));
            assertPromtoolAccepts(metrics);
            assertEveryAlertMeterIsCatalogued(metrics);
        }
    }

    /**
     * Every alert-consumer family of a real scrape is a meter of the catalogue, with the catalogue's help text (so
     * no site registers a meter of its own name or help).
     */
    static void assertEveryAlertMeterIsCatalogued(String metrics) {
        java.util.Map<String, String> helpOf = io.changestream.alerts.metrics.MeterCatalogueTest.alertHelpByFamily();
        int checked = 0;
        for (String line : metrics.split("\n")) {
            java.util.regex.Matcher h = java.util.regex.Pattern
                    .compile("^# HELP (changestream_(?:alert|subscriptions)\\w*) (.*)$").matcher(line);
            if (h.matches()) {
                checked++;
                assertTrue(helpOf.containsKey(h.group(1)), h.group(1) + " is registered but not in AlertMeter");
                assertEquals(helpOf.get(h.group(1)), h.group(2), "the help of " + h.group(1));
            }
        }
        assertTrue(checked >= 20, "alert-consumer families in the scrape: " + checked);
    }

    /** {@code promtool check metrics} accepts the scrape (every meter has HELP, names are valid). */
    static void assertPromtoolAccepts(String metrics) throws Exception {
        Path file = Files.createTempFile("alerts-metrics", ".txt");
        Files.writeString(file, metrics);
        Process p = new ProcessBuilder("sh", "-c", "promtool check metrics < " + file).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "promtool check metrics: " + out);
        Files.deleteIfExists(file);
    }

    static Map<String, Integer> countBy(List<String> values) {
        Map<String, Integer> counts = new HashMap<>();
        values.forEach(v -> counts.merge(v, 1, Integer::sum));
        return counts;
    }
}
