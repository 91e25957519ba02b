package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.alerts.pipeline.AlertProcessor;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failure paths of one alert service on the real broker with real receivers: 500 then 200 (retried, delivered
 * once), 400 (DLQ, SUBSCRIBER), retries exhausted (DLQ, retriesLeft 0), a bad expression (400 at save), an evaluation
 * error (DLQ, PUBLISHER), a black-hole endpoint (its circuit opens, a healthy destination of the same events is not
 * slowed, the circuit closes when it answers again), SMTP rejection (not counted as delivered) and SSRF refusal.
 */
class FailurePathsIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@cs.test", "alerts", "right"));

    private static final String SMTP_PASSWORD = "wrong-smtp-password-never-shown";
    private static final String WEBHOOK_SECRET = "rejected-webhook-secret-never-shown";
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void everyFailureEndsDeliveredOnceOrDeadLetteredWithItsSource() throws Exception {
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
                org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        root.addAppender(logs);
        try {
            failurePaths();
        } finally {
            root.detachAppender(logs);
        }
        String logged = logs.list.stream().map(e -> e.getFormattedMessage()
                + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage())).reduce("", String::concat);
        assertTrue(logs.list.size() > 0, "the service logged");
        assertFalse(logged.contains(SMTP_PASSWORD), "the SMTP password is never logged");
        assertFalse(logged.contains(AlertTestSupport.TOKEN), "the bearer token is never logged");
        assertFalse(logged.contains(WEBHOOK_SECRET), "the webhook secret is never logged");
    }

    private void failurePaths() throws Exception {
        String ns = AlertTestSupport.namespace("fail");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 4);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("destinations.breaker.failureThreshold", "3"); // /down fails twice and stays closed
        settings.put("destinations.breaker.openDuration", "PT1S");
        // the black hole's pairs leave the commit path when it stalls (decision 2101): its retry path backs off 1 s
        settings.put("retry.initialBackoff", "PT1S");
        settings.put("retry.recheckInterval", "PT0.2S");
        AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
        settings.put("smtp.username", "alerts");
        settings.put("smtp.password", SMTP_PASSWORD);
        try (Receiver receiver = new Receiver(); AlertService service = AlertService.start(
                AlertTestSupport.config(settings))) {
            int port = service.httpPort();
            receiver.then("/flaky", 500).always("/rejected", 400).always("/down", 503).hold("/blackhole")
                    .hold("/silent");
            String flaky = create(port, request("flaky", "[\"table\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/flaky"), null) + "]", 3));
            String rejected = create(port, request("rejected", "[\"topic\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/rejected"), WEBHOOK_SECRET) + "]", 3));
            String exhausted = create(port, request("exhausted", "[\"dashboard\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/down"), null) + "]", 1));
            String badEval = create(port, request("bad-eval", "[\"pipeline\"]", """
                    [{"name": "filterByEntityId", "effect": "include",
                      "arguments": [{"name": "entityIdList", "input": ["%s"]}]}]""".formatted(UUID.randomUUID()),
                    "[" + webhook("Webhook", receiver.url("/eval"), null) + "]", 3));
            String dead = create(port, request("dead", "[\"container\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/blackhole"), null).replace("\"readTimeout\": 3",
                            "\"readTimeout\": 1") + "]", 20));
            String healthy = create(port, request("healthy", "[\"container\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/healthy"), null) + "]", 3));
            // at most once, and the receiver takes the request but never answers: its outcome is unknown, so it is
            // not sent again but dead-lettered with that reason
            String unanswered = create(port, request("unanswered", "[\"chart\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/silent"), null).replace("\"readTimeout\": 3",
                            "\"readTimeout\": 1")
                            .replace("\"config\": {", "\"config\": {\"delivery\": \"atMostOnce\", ")
                    + "]", 5));
            String mail = create(port, request("mail", "[\"mlmodel\"]", "[]", """
                    [{"category": "External", "type": "Email", "config": {"receivers": ["ops@cs.test"]}}]""", 3));

            // a bad expression is refused at save, naming the field; an SSRF target needs the private setting
            AlertTestSupport.Answer bad = call(port, "POST", "/api/v1/events/subscriptions", """
                    {"name": "bad-expression", "destinations": [%s],
                     "filteringRules": {"resources": ["table"], "rules": [{"name": "r", "effect": "include",
                       "condition": "matchAnyEventType({'entityCreated'}) &&"}]}}
                    """.formatted(webhook("Webhook", receiver.url("/never"), null)));
            assertEquals(400, bad.status(), bad.body());
            assertTrue(bad.body().contains("filteringRules"), bad.body());

            String entity = UUID.randomUUID().toString();
            List<ChangeEvent> events = new ArrayList<>();
            ChangeEvent table = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", entity, "s.d.t");
            ChangeEvent topic = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "topic", entity, "s.t");
            ChangeEvent dashboard = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "dashboard", entity, "s.d");
            ChangeEvent pipeline = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "pipeline", "not-a-uuid",
                    "s.p");
            ChangeEvent model = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "mlmodel", entity, "s.m");
            ChangeEvent chart = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "chart", entity, "s.ch");
            events.addAll(List.of(table, topic, dashboard, pipeline, model, chart));
            List<ChangeEvent> containers = IntStream.range(0, 48).mapToObj(i -> AlertTestSupport.event(
                    ChangeEvent.ENTITY_UPDATED, "container", UUID.randomUUID().toString(), "s.c" + i)).toList();
            events.addAll(containers);
            long produced = System.nanoTime();
            AlertTestSupport.produce(broker, catalog.changes().name(), events);

            // the healthy destination gets every container event although the black hole holds its requests (the
            // deliveries of one event run concurrently: the healthy one does not wait for the black hole's timeout)
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> receiver.hits("/healthy").size()
                    >= containers.size());
            long healthyMillis = (System.nanoTime() - produced) / 1_000_000;
            Awaitility.await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertTrue(
                    metric(port, "changestream_alert_open_circuits") >= 1, "the black hole's circuit opens"));

            // 500 then 200: retried, delivered once, both attempts with the same key
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> receiver.hits("/flaky").size() >= 2);
            List<Receiver.Hit> flakyHits = receiver.hits("/flaky");
            assertEquals(2, flakyHits.size());
            assertEquals(flaky + ":" + table.id(), flakyHits.get(0).idempotencyKey());
            assertEquals(flakyHits.get(0).idempotencyKey(), flakyHits.get(1).idempotencyKey());

            // dead letters: 400 → SUBSCRIBER; retries exhausted → retriesLeft 0; evaluation error → PUBLISHER;
            // SMTP authentication refused → SUBSCRIBER, never counted delivered
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> deadLetters(catalog).size() >= 5);
            Map<String, FailedEvent> dlq = deadLetters(catalog).stream()
                    .collect(Collectors.toMap(FailedEvent::subscriptionId, f -> f));
            assertEquals(FailureSource.SUBSCRIBER, dlq.get(rejected).source());
            assertEquals(topic.id(), dlq.get(rejected).changeEvent().id());
            assertTrue(dlq.get(rejected).reason().contains("400"), dlq.get(rejected).reason());
            assertEquals(1, receiver.hits("/rejected").size(), "a permanent failure is not retried");
            assertEquals(0, dlq.get(exhausted).retriesLeft());
            assertEquals(2, dlq.get(exhausted).attempts(), "retries 1: two attempts");
            assertEquals(2, receiver.hits("/down").size());
            assertEquals(FailureSource.PUBLISHER, dlq.get(badEval).source());
            assertTrue(dlq.get(badEval).reason().contains("not a UUID"), dlq.get(badEval).reason());
            assertEquals(0, receiver.hits("/eval").size());
            assertEquals(FailureSource.SUBSCRIBER, dlq.get(mail).source());
            assertTrue(dlq.get(unanswered).reason().startsWith(AlertProcessor.UNANSWERED),
                    dlq.get(unanswered).reason());
            assertEquals(chart.id(), dlq.get(unanswered).changeEvent().id());
            assertEquals(1, receiver.hits("/silent").size(), "an at-most-once request without an answer is not sent "
                    + "again");
            assertEquals(0, SMTP.getReceivedMessages().length);
            assertFalse(dlq.containsKey(flaky) || dlq.containsKey(healthy));

            JsonNode flakyStatus = status(port, flaky);
            assertEquals(1, flakyStatus.get("delivered").asLong());
            assertEquals(1, flakyStatus.get("failed").asLong());
            assertEquals("active", flakyStatus.get("status").asText());
            assertEquals("failed", status(port, rejected).get("status").asText());
            assertEquals("retryLimitReached", status(port, exhausted).get("status").asText());
            JsonNode mailStatus = status(port, mail);
            assertEquals(0, mailStatus.get("delivered").asLong(), "SMTP rejection is not a delivery");
            assertEquals(1, mailStatus.get("deadLettered").asLong());
            assertEquals(0, call(port, "GET", "/api/v1/events/subscriptions/" + mail + "/summary", null).json()
                    .get("deliveredEvents").asLong());

            // the black hole answers again: the circuit closes and every held-back event arrives once
            receiver.release("/blackhole");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> receiver.hits("/blackhole").stream()
                    .map(Receiver.Hit::idempotencyKey).distinct().count() >= containers.size());
            Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> metric(port, "changestream_alert_open_circuits") == 0);
            assertFalse(dlq.containsKey(dead), "the dead endpoint's events waited, none was dead-lettered");
            assertTrue(status(port, dead).get("delivered").asLong() >= 1);

            // a replay from the DLQ names one subscription and re-sends only what was not delivered: a pair
            // delivered before is skipped; a dead-lettered pair is delivered again, once, however often it is replayed
            ChangeEvent replayed = containers.get(0);
            String deadKey = dead + ":" + replayed.id();
            long deadHitsBefore = receiver.hits("/blackhole").stream()
                    .filter(h -> deadKey.equals(h.idempotencyKey())).count();
            replay(catalog, replayed, healthy);
            receiver.always("/rejected", 200);
            replay(catalog, topic, rejected);
            replay(catalog, topic, rejected);
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> receiver.hits("/rejected").size() >= 2);
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> true);
            assertEquals(2, receiver.hits("/rejected").size(), "the 400, then one delivery for two replays");
            String replayKey = healthy + ":" + replayed.id();
            assertEquals(1, receiver.hits("/healthy").stream().filter(h -> replayKey.equals(h.idempotencyKey()))
                    .count(), "a replay of a delivered pair is not delivered again");
            assertEquals(deadHitsBefore, receiver.hits("/blackhole").stream()
                    .filter(h -> deadKey.equals(h.idempotencyKey())).count(),
                    "the other subscription of the event does not get the replay");

            // a record that is not an event lands in the DLQ with its raw value, coordinates and the reason
            try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                         new org.apache.kafka.clients.producer.KafkaProducer<>(KafkaTestClients.producerProps(broker))) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(catalog.changes().name(), 2,
                        "bad-key", "{\"not\": \"an event\"")).get();
            }
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> deadLetters(catalog).stream()
                    .anyMatch(f -> f.subscriptionId().equals(AlertProcessor.MALFORMED_SUBSCRIPTION)));
            FailedEvent malformed = deadLetters(catalog).stream()
                    .filter(f -> f.subscriptionId().equals(AlertProcessor.MALFORMED_SUBSCRIPTION)).findFirst()
                    .orElseThrow();
            assertEquals(FailureSource.PUBLISHER, malformed.source());
            assertTrue(malformed.reason().contains(catalog.changes().name() + "-2@"), malformed.reason());
            assertEquals("{\"not\": \"an event\"", malformed.changeEvent().entity().get("raw").asText());
            assertEquals(2, malformed.changeEvent().entity().get("partition").asInt());
            assertEquals("bad-key", malformed.changeEvent().entity().get("key").asText());

            // no secret in responses, metrics or the printed config
            String everything = call(port, "GET", "/api/v1/events/subscriptions", null).body()
                    + call(port, "GET", "/metrics", null, null).body() + service + AlertTestSupport.config(settings);
            assertFalse(everything.contains(SMTP_PASSWORD));
            assertFalse(everything.contains(WEBHOOK_SECRET));
            assertFalse(everything.contains(AlertTestSupport.TOKEN));
            System.out.printf("FailurePathsIT: healthy destination got %d events in %d ms beside a black hole%n",
                    containers.size(), healthyMillis);
        }
        ssrfIsRefusedWithoutThePrivateSetting();
    }

    private void ssrfIsRefusedWithoutThePrivateSetting() {
        String ns = AlertTestSupport.namespace("ssrf");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.remove("destinations.allowPrivateAddresses");
        try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
            for (String target : List.of("http://127.0.0.1:9/x", "http://169.254.169.254/latest/meta-data",
                    "http://10.0.0.1/hook")) {
                AlertTestSupport.Answer a = call(service.httpPort(), "POST", "/api/v1/events/subscriptions",
                        request("ssrf-" + target.hashCode(), "[\"all\"]", "[]",
                                "[" + webhook("Webhook", target, null) + "]", 3));
                assertEquals(400, a.status(), target + " must be refused: " + a.body());
                assertTrue(a.body().contains("endpoint"), a.body());
            }
        }
    }

    /** Produces an event as {@code ops dlq replay} does: to changes, with the subscription header. */
    private void replay(TopicCatalog catalog, ChangeEvent event, String subscriptionId) throws Exception {
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> producer =
                     new org.apache.kafka.clients.producer.KafkaProducer<>(KafkaTestClients.producerProps(broker))) {
            org.apache.kafka.clients.producer.ProducerRecord<String, String> record =
                    new org.apache.kafka.clients.producer.ProducerRecord<>(catalog.changes().name(),
                            event.entityId(), Serdes.changeEvent().toJson(event));
            record.headers().add(AlertProcessor.REPLAY_SUBSCRIPTION_HEADER,
                    subscriptionId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            producer.send(record).get();
        }
    }

    private List<FailedEvent> deadLetters(TopicCatalog catalog) {
        return KafkaTestClients.readAll(broker, catalog.alertDlq().name(), Duration.ofMillis(500)).stream()
                .map(r -> Serdes.failedEvent().fromJson(r.value())).toList();
    }

    private static JsonNode status(int port, String id) {
        AlertTestSupport.Answer a = call(port, "GET", "/api/v1/events/subscriptions/" + id + "/status", null);
        assertEquals(200, a.status(), a.body());
        JsonNode json = a.json();
        JsonNode destinations = json.has("destinations") ? json.get("destinations") : json;
        return destinations.isArray() ? destinations.get(0) : destinations;
    }

    private static double metric(int port, String name) {
        return call(port, "GET", "/metrics", null, null).body().lines()
                .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
