package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.transform.ChangeEventTransform;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.FutureCallback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same SMT on a real Kafka Connect worker (standalone, in this JVM) running Debezium's Postgres connector: the
 * Connect form drops filtered rows, routes envelopes and dead letters, masks secrets.
 */
class KafkaConnectSmtIT {

    private static final String NS = "connect-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    private static PostgresDatabase pg;
    private static KafkaBroker broker;
    private static Connect<StandaloneHerder> connect;

    @BeforeAll
    static void start() throws Exception {
        pg = PostgresDatabase.start();
        pg.executeResource("io/changestream/cdc/sql/postgres.sql");
        broker = Brokers.shared();
        broker.createTopic(NS + "changes", 3);
        broker.createTopic(NS + "cdc-dlq", 1);
        Path offsets = Files.createTempFile("connect-offsets", ".dat");
        Map<String, String> worker = new HashMap<>();
        worker.put("bootstrap.servers", broker.bootstrapServers());
        worker.put("key.converter", StringConverter.class.getName());
        worker.put("value.converter", StringConverter.class.getName());
        worker.put("offset.storage.file.filename", offsets.toString());
        worker.put("offset.flush.interval.ms", "1000");
        worker.put("listeners", "http://127.0.0.1:0");
        connect = new ConnectStandalone().startConnect(worker);

        Map<String, String> connector = new HashMap<>();
        connector.put("name", "cs-postgres");
        connector.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        connector.put("tasks.max", "1");
        connector.put("database.hostname", pg.host());
        connector.put("database.port", Integer.toString(pg.port()));
        connector.put("database.user", PostgresDatabase.USER);
        connector.put("database.password", PostgresDatabase.PASSWORD);
        connector.put("database.dbname", PostgresDatabase.DATABASE);
        connector.put("topic.prefix", "cs-connect");
        connector.put("plugin.name", "pgoutput");
        connector.put("slot.name", "cs_connect");
        connector.put("publication.name", "cs_connect");
        connector.put("publication.autocreate.mode", "filtered");
        connector.put("slot.drop.on.stop", "true");
        connector.put("snapshot.mode", "no_data");
        connector.put("table.include.list", "public\\.change_event,public\\.entity_extension_time_series");
        connector.put("transforms", "changestream");
        connector.put("transforms.changestream.type", ChangeEventTransform.class.getName());
        connector.put("transforms.changestream.topic.namespace", NS);
        connector.put("transforms.changestream.mask.pointers", "/connection/config/password");
        connector.put("transforms.changestream.filter.exclude.entity.types", "bot");
        FutureCallback<Object> created = new FutureCallback<>();
        connect.herder().putConnectorConfig("cs-postgres", connector, false, (error, result) -> {
            created.onCompletion(error, result);
        });
        created.get(60, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            var status = connect.herder().connectorStatus("cs-postgres");
            return !status.tasks().isEmpty() && "RUNNING".equals(status.tasks().get(0).state());
        });
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.stop();
            connect.awaitStop();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static void insert(String json) {
        pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(json) + "::jsonb)");
    }

    @Test
    void theSmtMapsMasksFiltersAndDeadLettersOnKafkaConnect() {
        String entity = UUID.randomUUID().toString();
        String masked = UUID.randomUUID().toString();
        String filtered = UUID.randomUUID().toString();
        String last = UUID.randomUUID().toString();
        insert(Rows.changeEvent(masked, "entityCreated", "databaseService", entity, 1,
                ",\"entity\":{\"connection\":{\"config\":{\"password\":\"pw-on-connect\"}}}"));
        insert(Rows.changeEvent(filtered, "entityCreated", "bot", entity, 2, ""));
        insert("{\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"" + entity
                + "\",\"timestamp\":3}");
        insert(Rows.changeEvent(last, "entityUpdated", "table", entity, 4, ""));

        try (TopicReader changes = new TopicReader(broker, NS + "changes");
             TopicReader dlq = new TopicReader(broker, NS + "cdc-dlq")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> changes.values().stream()
                    .anyMatch(v -> last.equals(v.path("id").asText())));
            var mine = changes.poll().stream().filter(r -> entity.equals(r.key())).toList();
            assertEquals(2, mine.size(), "the masked and the last event; the filtered one was dropped");
            JsonNode first = TopicReader.parse(mine.get(0).value());
            assertEquals(masked, first.path("id").asText());
            assertEquals("******", first.at("/entity/connection/config/password").asText());
            assertFalse(mine.get(0).value().contains("pw-on-connect"));
            assertEquals("public.change_event", first.at("/source/table").asText());
            await().atMost(Duration.ofSeconds(30)).until(() -> dlq.values().stream()
                    .anyMatch(v -> v.path("rawRow").asText().contains(entity)));
        }
    }
}
