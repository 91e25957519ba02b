package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.transform.RowOutcome;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The connector in this JVM against a real PostgreSQL (pgoutput) and a real broker. One database per class. */
class PostgresCaptureIT {

    private static final String NS = "pg-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private static final String PASSWORD_SECRET = "hunter2-" + UUID.randomUUID();
    private static final List<String> EVENT_TYPES = List.of("entityCreated", "entityUpdated", "entityFieldsChanged",
            "entitySoftDeleted", "entityRestored", "entityNoChange", "entityDeleted");

    private static PostgresDatabase pg;
    private static KafkaBroker broker;
    private static CdcConnector connector;

    @BeforeAll
    static void start() {
        pg = PostgresDatabase.start();
        pg.executeResource("io/changestream/cdc/sql/postgres.sql");
        broker = Brokers.shared();
        Map<String, String> settings = new HashMap<>(Configs.postgres(pg, broker, NS, "cs_pg_it"));
        settings.put("postgres.slot.drop.on.stop", "true");
        settings.put("mask.pointers", "/connection/config/password");
        settings.put("filter.exclude.entity.types", "bot");
        settings.put("max.row.bytes", "4096");
        connector = new CdcConnector(CdcConfig.fromMap(settings)).start();
        await().atMost(Duration.ofSeconds(60)).until(connector::streaming);
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static void insertChangeEvent(String json) {
        pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(json) + "::jsonb)");
    }

    private static JsonNode awaitById(TopicReader reader, String field, String id) {
        List<JsonNode> found = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            reader.values().stream().filter(v -> id.equals(v.path(field).asText())).findFirst().ifPresent(found::add);
            return !found.isEmpty();
        });
        return found.get(0);
    }

    @Test
    void everyEventTypeBecomesItsEnvelopeInCommitOrderPerEntity() {
        String entityA = UUID.randomUUID().toString();
        String entityB = UUID.randomUUID().toString();
        List<String> ids = new ArrayList<>();
        StringBuilder tx = new StringBuilder("BEGIN;\n");
        for (String type : EVENT_TYPES) {
            for (String entity : List.of(entityA, entityB)) {
                String id = UUID.randomUUID().toString();
                ids.add(id);
                tx.append("INSERT INTO change_event (json) VALUES (").append(Rows.literal(Rows.changeEvent(id, type,
                        "table", entity, 1_700_000_000_000L + ids.size(), ""))).append("::jsonb);\n");
            }
        }
        pg.execute(tx.append("COMMIT;").toString());

        try (TopicReader reader = new TopicReader(broker, NS + "changes")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> reader.values().stream()
                    .filter(v -> ids.contains(v.path("id").asText())).count() >= ids.size());
            List<JsonNode> mine = reader.values().stream().filter(v -> ids.contains(v.path("id").asText())).toList();
            assertEquals(ids.size(), mine.size(), "exactly one envelope per row");
            for (String entity : List.of(entityA, entityB)) {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < ids.size(); i++) {
                    if (i % 2 == (entity.equals(entityA) ? 0 : 1)) {
                        expected.add(ids.get(i));
                    }
                }
                List<String> actual = mine.stream().filter(v -> entity.equals(v.path("entityId").asText()))
                        .map(v -> v.path("id").asText()).toList();
                assertEquals(expected, actual, "per-entity commit order");
            }
            JsonNode first = mine.get(0);
            assertEquals("entityCreated", first.path("eventType").asText());
            assertEquals("table", first.path("entityType").asText());
            assertEquals("admin", first.path("userName").asText());
            assertEquals(0.2, first.path("currentVersion").asDouble());
            assertEquals("public.change_event", first.at("/source/table").asText());
            assertTrue(first.at("/source/sourceOffset").asLong() > 0);
            assertTrue(first.at("/source/logPosition").asText().contains("/"));
            assertTrue(first.at("/source/commitTimeMs").asLong() > 0);
            assertTrue(first.at("/source/captureTimeMs").asLong() >= first.at("/source/commitTimeMs").asLong());
            List<String> types = mine.stream().map(v -> v.path("eventType").asText()).distinct().toList();
            assertEquals(EVENT_TYPES, types);
        }
    }

    @Test
    void pipelineStatusRowsReachThePipelineStatusTopicAndOtherExtensionsAreIgnored() {
        String run = UUID.randomUUID().toString();
        long ignoredBefore = connector.metrics().count(RowOutcome.IGNORED);
        pg.execute("INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) VALUES "
                + "('h1', 'testCase.testCaseResult', 'testCaseResult', '{\"timestamp\": 5}'::jsonb)");
        pg.execute("INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) VALUES "
                + "('h1', 'ingestionPipeline.pipelineStatus', 'pipelineStatus', "
                + Rows.literal(Rows.status("svc.ingest", run, "running", 1_000)) + "::jsonb)");
        pg.execute("UPDATE entity_extension_time_series SET json = "
                + Rows.literal(Rows.status("svc.ingest", run, "success", 2_000))
                + "::jsonb WHERE json ->> 'runId' = " + Rows.literal(run));
        try (TopicReader reader = new TopicReader(broker, NS + "pipeline-status")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> reader.poll().stream()
                    .filter(r -> r.key().equals("svc.ingest/" + run)).count() == 2);
            List<JsonNode> states = reader.poll().stream().filter(r -> r.key().equals("svc.ingest/" + run))
                    .map(r -> TopicReader.parse(r.value())).toList();
            assertEquals("running", states.get(0).path("state").asText());
            assertEquals("success", states.get(1).path("state").asText());
            assertEquals(2_000, states.get(1).path("endDate").asLong());
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> connector.metrics().count(RowOutcome.IGNORED) >= ignoredBefore + 1);
    }

    @Test
    void malformedAndOversizedRowsGoToTheDeadLetterTopicAndTheStreamGoesOn() {
        String entity = UUID.randomUUID().toString();
        String missingIdJson = "{\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"" + entity
                + "\",\"timestamp\":1}";
        String oversizedId = UUID.randomUUID().toString();
        String after = UUID.randomUUID().toString();
        insertChangeEvent(missingIdJson);
        insertChangeEvent(Rows.changeEvent(oversizedId, "entityCreated", "table", entity, 1,
                ",\"entity\":{\"description\":\"" + "x".repeat(5_000) + "\"}"));
        insertChangeEvent(Rows.changeEvent(after, "entityCreated", "table", entity, 2, ""));

        try (TopicReader changes = new TopicReader(broker, NS + "changes");
             TopicReader dlq = new TopicReader(broker, NS + "cdc-dlq")) {
            awaitById(changes, "id", after);
            // JSONB reorders keys (short first): the truncated oversized row keeps its id, not its entityId
            java.util.function.Predicate<JsonNode> mine = v -> v.path("rawRow").asText().contains(entity)
                    || v.path("rawRow").asText().contains(oversizedId);
            await().atMost(Duration.ofSeconds(30)).until(() -> dlq.values().stream().filter(mine).count() == 2);
            List<JsonNode> letters = dlq.values().stream().filter(mine).toList();
            assertTrue(letters.get(0).path("reason").asText().contains("id"), letters.get(0).toString());
            assertTrue(letters.get(1).path("reason").asText().contains("max.row.bytes=4096"),
                    letters.get(1).toString());
            assertEquals("public.change_event", letters.get(0).path("sourceTable").asText());
            assertTrue(letters.get(0).path("sourceOffset").asLong() > 0);
            assertFalse(changes.values().stream().anyMatch(v -> oversizedId.equals(v.path("id").asText())));
        }
    }

    @Test
    void secretsAreMaskedAndExcludedEntityTypesAreFilteredAndRetentionDeletesIgnored() {
        String entity = UUID.randomUUID().toString();
        String masked = UUID.randomUUID().toString();
        String filtered = UUID.randomUUID().toString();
        String last = UUID.randomUUID().toString();
        long filteredBefore = connector.metrics().count(RowOutcome.FILTERED);
        long ignoredBefore = connector.metrics().count(RowOutcome.IGNORED);
        insertChangeEvent(Rows.changeEvent(masked, "entityCreated", "databaseService", entity, 1,
                ",\"entity\":{\"connection\":{\"config\":{\"password\":\"" + PASSWORD_SECRET + "\",\"user\":\"u\"}}}"));
        insertChangeEvent(Rows.changeEvent(filtered, "entityCreated", "bot", entity, 2, ""));
        pg.execute("DELETE FROM change_event WHERE json ->> 'id' = " + Rows.literal(filtered));
        insertChangeEvent(Rows.changeEvent(last, "entityCreated", "table", entity, 3, ""));

        try (TopicReader changes = new TopicReader(broker, NS + "changes")) {
            JsonNode event = awaitById(changes, "id", masked);
            assertEquals("******", event.at("/entity/connection/config/password").asText());
            assertEquals("u", event.at("/entity/connection/config/user").asText());
            awaitById(changes, "id", last);
            assertFalse(changes.poll().stream().anyMatch(r -> r.value().contains(PASSWORD_SECRET)));
            assertFalse(changes.values().stream().anyMatch(v -> filtered.equals(v.path("id").asText())));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> connector.metrics().count(RowOutcome.FILTERED)
                == filteredBefore + 1 && connector.metrics().count(RowOutcome.IGNORED) == ignoredBefore + 1);
    }

    @Test
    void healthAndMetricsAreServed() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + connector.httpPort();
        assertEquals(200, get(http, base + "/health/live").statusCode());
        assertEquals(200, get(http, base + "/health/ready").statusCode());
        insertChangeEvent(Rows.changeEvent(UUID.randomUUID().toString(), "entityCreated", "table",
                UUID.randomUUID().toString(), 1, ""));
        await().atMost(Duration.ofSeconds(30)).until(() -> connector.metrics().count(RowOutcome.PRODUCED) > 0);
        String metrics = get(http, base + "/metrics").body();
        assertTrue(metrics.contains("cdc_events_total{outcome=\"produced\",table=\"public.change_event\"}"), metrics);
        assertTrue(metrics.contains("cdc_connected 1.0"), metrics);
        assertTrue(metrics.contains("cdc_capture_lag_seconds_count"), metrics);
        assertTrue(metrics.contains("# HELP cdc_log_position"), metrics);
        assertFalse(metrics.contains(PostgresDatabase.PASSWORD + "\""), "no secret in metrics");
        // Prometheus' own checker (Debian's prometheus package; ops/test installs it): HELP on every meter, names
        Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        try (var in = promtool.getOutputStream()) {
            in.write(metrics.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String verdict = new String(promtool.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, promtool.waitFor(), "promtool check metrics: " + verdict);
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
