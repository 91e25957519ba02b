package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.MariaDbServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The connector against a real MariaDB (ROW binlog, schema history in Kafka) and a real broker: envelopes, pipeline
 * status, dead letters, snapshot modes, and the lease-based standby. One server per class.
 */
class MariaDbCaptureIT {

    private static final String NS = "maria-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private static final String EXISTING_ID = UUID.randomUUID().toString();

    @RegisterExtension
    static final PlatformMariaDb MARIADB = new PlatformMariaDb();

    private static MariaDbServer db;
    private static KafkaBroker broker;
    private static CdcConnector connector;

    @BeforeAll
    static void start() {
        db = MARIADB.db();
        broker = Brokers.shared();
        insertChangeEvent(Rows.changeEvent(EXISTING_ID, "entityCreated", "table", UUID.randomUUID().toString(), 1, ""));
        connector = new CdcConnector(CdcConfig.fromMap(Configs.mariadb(db, broker, NS, "cs-maria"))).start();
        await().atMost(Duration.ofSeconds(90)).until(connector::streaming);
    }

    @AfterAll
    static void stop() {
        if (connector != null) {
            connector.close();
        }
    }

    private static void insertChangeEvent(String json) {
        db.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(json) + ")");
    }

    @Test
    void rowsBecomeEnvelopesStatusAndDeadLettersFromTheBinlog() {
        String entity = UUID.randomUUID().toString();
        List<String> ids = new ArrayList<>();
        for (String type : List.of("entityCreated", "entityUpdated", "entitySoftDeleted", "entityDeleted")) {
            String id = UUID.randomUUID().toString();
            ids.add(id);
            insertChangeEvent(Rows.changeEvent(id, type, "table", entity, 1_700_000_000_000L + ids.size(), ""));
        }
        insertChangeEvent("{\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"" + entity
                + "\",\"timestamp\":1}");
        db.execute("DELETE FROM change_event WHERE JSON_VALUE(json, '$.id') = " + Rows.literal(ids.get(0)));
        String run = UUID.randomUUID().toString();
        db.execute("INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) VALUES "
                + "('h1', 'ingestionPipeline.pipelineStatus', 'pipelineStatus', "
                + Rows.literal(Rows.status("svc.maria_ingest", run, "running", 1_000)) + ")");
        db.execute("UPDATE entity_extension_time_series SET json = "
                + Rows.literal(Rows.status("svc.maria_ingest", run, "failed", 2_000))
                + " WHERE JSON_VALUE(json, '$.runId') = " + Rows.literal(run));

        try (TopicReader changes = new TopicReader(broker, NS + "changes");
             TopicReader status = new TopicReader(broker, NS + "pipeline-status");
             TopicReader dlq = new TopicReader(broker, NS + "cdc-dlq")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                    .filter(v -> entity.equals(v.path("entityId").asText())).count() >= ids.size());
            List<JsonNode> mine = changes.values().stream().filter(v -> entity.equals(v.path("entityId").asText()))
                    .toList();
            assertEquals(ids, mine.stream().map(v -> v.path("id").asText()).toList(), "in commit order, once each");
            JsonNode first = mine.get(0);
            assertEquals("platform.change_event", first.at("/source/table").asText());
            assertTrue(first.at("/source/logPosition").asText().matches(".+:\\d+:\\d+"), first.toString());
            assertTrue(first.at("/source/sourceOffset").asLong() > 0);
            assertFalse(changes.values().stream().anyMatch(v -> EXISTING_ID.equals(v.path("id").asText())),
                    "snapshot.mode=no_data does not backfill");

            await().atMost(Duration.ofSeconds(30)).until(() -> status.poll().stream()
                    .filter(r -> r.key().equals("svc.maria_ingest/" + run)).count() == 2);
            List<String> states = status.poll().stream().filter(r -> r.key().equals("svc.maria_ingest/" + run))
                    .map(r -> TopicReader.parse(r.value()).path("state").asText()).toList();
            assertEquals(List.of("running", "failed"), states);

            await().atMost(Duration.ofSeconds(30)).until(() -> dlq.values().stream()
                    .anyMatch(v -> v.path("rawRow").asText().contains(entity)));
            JsonNode letter = dlq.values().stream().filter(v -> v.path("rawRow").asText().contains(entity))
                    .findFirst().orElseThrow();
            assertTrue(letter.path("reason").asText().contains("id"), letter.toString());
            assertEquals("platform.change_event", letter.path("sourceTable").asText());
        }
    }

    @Test
    void initialSnapshotBackfillsExistingRows() {
        String ns = "maria-initial-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> settings = new HashMap<>(Configs.mariadb(db, broker, ns, "cs-maria-initial"));
        settings.put("snapshot.mode", "initial");
        settings.put("database.server.id", "5402");
        try (CdcConnector backfill = new CdcConnector(CdcConfig.fromMap(settings)).start();
             TopicReader changes = new TopicReader(broker, ns + "changes")) {
            await().atMost(Duration.ofSeconds(90)).until(() -> changes.values().stream()
                    .anyMatch(v -> EXISTING_ID.equals(v.path("id").asText())));
        }
    }

    @Test
    void standbyTakesTheLeaseAfterTheActiveInstanceIsKilled() throws Exception {
        String ns = "maria-standby-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> settings = new HashMap<>(Configs.mariadb(db, broker, ns, "cs-maria-standby"));
        settings.put("database.server.id", "5403");
        settings.put("lease.session.timeout.ms", "6000");
        StandbyTakeover.run("mariadb", broker, ns, settings, MariaDbCaptureIT::insertChangeEvent,
                Duration.ofSeconds(40));
        for (String instance : List.of("mariadb-a", "mariadb-b")) {
            String log = java.nio.file.Files.readString(java.nio.file.Path.of("target", "connector-processes",
                    instance + ".log"));
            assertTrue(log.contains("password=******"), "the config is logged with the password masked");
            assertFalse(log.contains(MariaDbServer.PASSWORD), "the database password is never logged");
        }
    }
}
