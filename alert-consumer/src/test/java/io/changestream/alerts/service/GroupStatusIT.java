package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code /status} is group-wide and durable: two instances of one group deliver a few hundred events to two
 * subscriptions (one receiver rejects some events and fails others once), both answer the same numbers — the ones
 * the receivers saw, counted per notification, not per attempt — and after both are restarted they still do.
 */
class GroupStatusIT {

    private static final int EVENTS = 240;
    private static final int REJECTED = 12; // every 20th: 400, dead-lettered
    private static final int FLAKY = 8;     // 503 once, then delivered
    private final KafkaBroker broker = Brokers.shared();

    /** Answers 2xx, or 400 to bodies naming a {@code rejected_} table, or 503 the first time for {@code flaky_}. */
    static final class CountingReceiver implements AutoCloseable {
        private final LoopbackHttpServer server;
        private final Map<String, Set<String>> okByPath = new ConcurrentHashMap<>();
        private final Map<String, Set<String>> rejectedByPath = new ConcurrentHashMap<>();
        private final Map<String, Set<String>> failedOnceByPath = new ConcurrentHashMap<>();

        CountingReceiver() {
            // a thread per request, like a receiver that keeps up: deliveries run concurrently now (up to
            // delivery.maxConcurrentPerDestination per destination and instance), and requests queued behind 8
            // threads on a loaded machine ran into the destinations' 3 s read timeout (retried: "failed" counts)
            server = LoopbackHttpServer.start(128, exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String path = exchange.getRequestURI().getPath();
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                int status = 200;
                if (path.equals("/picky") && body.contains("rejected_")) {
                    status = 400;
                    rejectedByPath.computeIfAbsent(path, p -> ConcurrentHashMap.newKeySet()).add(key);
                } else if (path.equals("/picky") && body.contains("flaky_")
                        && failedOnceByPath.computeIfAbsent(path, p -> ConcurrentHashMap.newKeySet()).add(key)) {
                    status = 503;
                } else {
                    okByPath.computeIfAbsent(path, p -> ConcurrentHashMap.newKeySet()).add(key);
                }
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
        }

        String url(String path) {
            return server.url(path);
        }

        int ok(String path) {
            return okByPath.getOrDefault(path, Set.of()).size();
        }

        int rejected(String path) {
            return rejectedByPath.getOrDefault(path, Set.of()).size();
        }

        int failedOnce(String path) {
            return failedOnceByPath.getOrDefault(path, Set.of()).size();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    @Test
    void bothInstancesAnswerTheSameTrueNumbersAlsoAfterBothRestart() {
        String ns = AlertTestSupport.namespace("groupstatus");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 4);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        try (CountingReceiver receiver = new CountingReceiver()) {
            String good;
            String picky;
            JsonNode goodBefore;
            JsonNode pickyBefore;
            try (AlertService a = AlertService.start(AlertTestSupport.config(settings));
                 AlertService b = AlertService.start(AlertTestSupport.config(settings))) {
                good = create(a.httpPort(), request("status-good", "[\"table\"]", "[]",
                        "[" + webhook("Webhook", receiver.url("/good"), null) + "]", 3));
                picky = create(a.httpPort(), request("status-picky", "[\"table\"]", "[]",
                        "[" + webhook("Webhook", receiver.url("/picky"), null) + "]", 3));
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                        a.runtime().status().partitions().stream().anyMatch(p -> p.topic().equals(
                                catalog.changes().name()))
                                && b.runtime().status().partitions().stream().anyMatch(p -> p.topic().equals(
                                catalog.changes().name())));

                List<ChangeEvent> events = new ArrayList<>();
                for (int i = 0; i < EVENTS; i++) {
                    String table = i % 20 == 7 ? "rejected_t" + i : i % 30 == 11 ? "flaky_t" + i : "t" + i;
                    events.add(AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                            UUID.nameUUIDFromBytes(("gs-" + i).getBytes()).toString(), "svc.db." + table));
                }
                AlertTestSupport.produce(broker, catalog.changes().name(), events);

                Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> assertEquals(List.of(EVENTS, EVENTS - REJECTED, REJECTED),
                                List.of(receiver.ok("/good"), receiver.ok("/picky"), receiver.rejected("/picky")),
                                "notifications accepted at /good and /picky, rejected at /picky"));
                assertEquals(FLAKY, receiver.failedOnce("/picky"));
                assertTrue(a.summary().of(good).map(s -> s.deliveredEvents()).orElse(0L) > 0, "instance a worked");
                assertTrue(b.summary().of(good).map(s -> s.deliveredEvents()).orElse(0L) > 0, "instance b worked");

                // the last settlements land in the ledger shortly after the receivers answered
                Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    assertCounts(destination(a, good), EVENTS, 0, 0);
                    assertCounts(destination(a, picky), EVENTS - REJECTED, FLAKY + REJECTED, REJECTED);
                });
                goodBefore = status(a, good);
                pickyBefore = status(a, picky);
                assertEquals(goodBefore, status(b, good), "both instances answer the same");
                assertEquals(pickyBefore, status(b, picky), "both instances answer the same");
            }

            JsonNode picked = pickyBefore.get("destinations").get(0);
            assertTrue(picked.get("lastFailedReason").asText().contains("400"), picked.toString());
            assertTrue(picked.get("lastSuccessfulAt").asLong() > 0 && picked.get("lastFailedAt").asLong() > 0);
            assertEquals(picked.get("lastFailedAt").asLong() > picked.get("lastSuccessfulAt").asLong()
                    ? "failed" : "active", picked.get("status").asText(), "a 400 is a permanent failure");
            assertEquals("active", goodBefore.get("destinations").get(0).get("status").asText());

            // both restart: the view is rebuilt from the topics, nothing is redelivered, the numbers stay
            try (AlertService a = AlertService.start(AlertTestSupport.config(settings));
                 AlertService b = AlertService.start(AlertTestSupport.config(settings))) {
                for (AlertService s : List.of(a, b)) {
                    assertEquals(goodBefore, status(s, good), "after the restart, instance on " + s.httpPort());
                    assertEquals(pickyBefore, status(s, picky), "after the restart, instance on " + s.httpPort());
                }
            }
            assertEquals(EVENTS, receiver.ok("/good"), "nothing was delivered again");
            assertEquals(EVENTS - REJECTED, receiver.ok("/picky"));
        }
    }

    private static void assertCounts(JsonNode destination, long delivered, long failed, long deadLettered) {
        assertEquals(delivered, destination.get("delivered").asLong(), destination.toString());
        assertEquals(failed, destination.get("failed").asLong(), destination.toString());
        assertEquals(deadLettered, destination.get("deadLettered").asLong(), destination.toString());
    }

    private static JsonNode destination(AlertService s, String id) {
        return status(s, id).get("destinations").get(0);
    }

    private static JsonNode status(AlertService s, String id) {
        AlertTestSupport.Answer answer = call(s.httpPort(), "GET", "/api/v1/events/subscriptions/" + id + "/status",
                null);
        assertEquals(200, answer.status(), answer.body());
        JsonNode json = answer.json();
        assertTrue(json.get("current").asBoolean(), "the view caught up: " + json);
        return json;
    }
}
