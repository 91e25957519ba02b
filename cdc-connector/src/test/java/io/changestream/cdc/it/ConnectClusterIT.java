package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scale-out path for real (issue 24): a Kafka Connect cluster of two distributed workers (Kafka's own runtime, as
 * child JVMs) runs the shipped {@code ops/connect/changestream-postgres.json} — Debezium's Postgres connector and
 * {@code ChangeEventTransform}, credentials through the file config provider, exactly-once source support on —
 * against the suite's PostgreSQL, beside the embedded connector on a slot of its own. The records both write for the
 * same rows are the same (keys, values, headers, order per entity); a {@code kill -9} of the worker that runs the
 * task moves the task to the other worker and loses nothing.
 */
class ConnectClusterIT {

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String EMBEDDED = "emb-" + RUN + ".";
    private static final String CONNECT = "cnx-" + RUN + ".";
    private static final String CONNECTOR = "changestream-postgres";
    /** Headers only the embedded connector writes: its instance and lease epoch (there is no lease on Connect). */
    private static final Set<String> EMBEDDED_ONLY = Set.of("cs.capturer", "cs.lease.epoch");
    /** Headers whose value is new for every capture (a time, a new trace). */
    private static final Set<String> PER_CAPTURE = Set.of("cs.captured.ms", "traceparent");

    private static PostgresDatabase pg;
    private static KafkaBroker broker;
    private static CdcConnector embedded;
    private static final List<ConnectWorker> WORKERS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        pg = PostgresDatabase.start();
        pg.executeResource("io/changestream/cdc/sql/postgres.sql");
        broker = Brokers.shared();
        Map<String, String> settings = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), EMBEDDED,
                "cs_emb_" + RUN);
        settings.put("postgres.slot.drop.on.stop", "true");
        settings.put("mask.pointers", "/connection/config/password"); // as in the shipped Connect config
        embedded = new CdcConnector(CdcConfig.fromMap(settings)).start();
        await("embedded streaming").atMost(Duration.ofSeconds(90)).until(embedded::streaming);

        for (String topic : List.of("changes", "pipeline-status")) {
            broker.createTopic(CONNECT + topic, 3);
        }
        broker.createTopic(CONNECT + "cdc-dlq", 1);
        Map<String, String> worker = workerSettings();
        WORKERS.add(ConnectWorker.start("worker-1-" + RUN, worker));
        WORKERS.add(ConnectWorker.start("worker-2-" + RUN, worker));
        for (ConnectWorker w : WORKERS) {
            w.awaitUp(Duration.ofSeconds(120));
        }
        WORKERS.get(0).putConnector(CONNECTOR, connectorConfig());
        await("connector task running").atMost(Duration.ofSeconds(120)).until(() -> taskWorker() != null);
        // both capture from here on: a probe row reaches both topics
        String probe = UUID.randomUUID().toString();
        insert(Rows.changeEvent(probe, "entityCreated", "table", UUID.randomUUID().toString(), 1, ""));
        try (TopicReader e = new TopicReader(broker, EMBEDDED + "changes");
             TopicReader c = new TopicReader(broker, CONNECT + "changes")) {
            await("probe on both").atMost(Duration.ofSeconds(120)).until(() ->
                    e.values().stream().anyMatch(v -> probe.equals(v.path("id").asText()))
                            && c.values().stream().anyMatch(v -> probe.equals(v.path("id").asText())));
        }
    }

    /** The shipped worker file, pointed at the test broker, its own topics and group, and sped-up group timings. */
    private static Map<String, String> workerSettings() throws Exception {
        Map<String, String> w = new HashMap<>();
        java.util.Properties shipped = new java.util.Properties();
        try (var in = Files.newInputStream(Path.of("..", "ops", "connect", "connect-distributed.properties"))) {
            shipped.load(in);
        }
        shipped.forEach((k, v) -> w.put(k.toString(), v.toString()));
        w.remove("plugin.path"); // the test's class path holds the connector and the transform
        w.remove("rest.port");
        w.put("bootstrap.servers", broker.bootstrapServers());
        w.put("group.id", "cs-connect-" + RUN);
        for (String store : List.of("config", "offset", "status")) {
            w.put(store + ".storage.topic", "cs-connect-" + RUN + "-" + store + "s");
            w.put(store + ".storage.replication.factor", "1");
        }
        w.put("offset.storage.partitions", "1");
        w.put("status.storage.partitions", "1");
        // a dead worker's task moves within seconds (defaults: 10 s session, 5 min scheduled rebalance delay)
        w.put("session.timeout.ms", "6000");
        w.put("heartbeat.interval.ms", "1000");
        w.put("scheduled.rebalance.max.delay.ms", "1000");
        return w;
    }

    /** The shipped connector JSON with its credentials file written here, its slot, and this run's namespace. */
    private static Map<String, String> connectorConfig() throws Exception {
        Path secrets = Files.createTempFile("changestream-db", ".properties");
        Files.writeString(secrets, "host=" + pg.host() + "\nport=" + pg.port() + "\ndbname=" + PostgresDatabase.DATABASE
                + "\nuser=" + PostgresDatabase.USER + "\npassword=" + PostgresDatabase.PASSWORD + "\n");
        JsonNode config = Json.mapper().readTree(Path.of("..", "ops", "connect", "changestream-postgres.json")
                .toFile()).get("config");
        Map<String, String> c = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            c.put(e.getKey(), e.getValue().asText().replace("/etc/kafka-connect/secrets/changestream-db.properties",
                    secrets.toString()));
        }
        c.put("slot.name", "cs_cnx_" + RUN);
        c.put("publication.name", "cs_cnx_" + RUN);
        c.put("topic.prefix", "cs-cnx-" + RUN);
        c.put("transforms.changestream.topic.namespace", CONNECT);
        return c;
    }

    /** The worker id of the running task, or null while there is none. */
    private static String taskWorker() throws Exception {
        for (ConnectWorker w : WORKERS) {
            if (!w.alive()) {
                continue;
            }
            JsonNode status = w.status(CONNECTOR);
            if (status != null && status.path("tasks").size() == 1
                    && "RUNNING".equals(status.path("tasks").get(0).path("state").asText())) {
                return status.path("tasks").get(0).path("worker_id").asText();
            }
        }
        return null;
    }

    @AfterAll
    static void stop() throws Exception {
        for (ConnectWorker w : WORKERS) {
            w.close();
        }
        if (embedded != null) {
            embedded.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static void insert(String json) {
        pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(json) + "::jsonb)");
    }

    private static void insertStatus(String fqn, String json) {
        pg.execute("INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) VALUES ("
                + Rows.literal(fqn) + ", 'ingestionPipeline.pipelineStatus', 'pipelineStatus', "
                + Rows.literal(json) + "::jsonb)");
    }

    @Test
    void connectWritesWhatTheEmbeddedConnectorWritesForTheSameRows() throws Exception {
        List<String> entities = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            entities.add(UUID.randomUUID().toString());
        }
        Set<String> ids = new TreeSet<>();
        StringBuilder batch = new StringBuilder("BEGIN;\n");
        for (int i = 0; i < 200; i++) {
            String id = UUID.randomUUID().toString();
            ids.add(id);
            batch.append("INSERT INTO change_event (json) VALUES (").append(Rows.literal(Rows.changeEvent(id,
                    i % 3 == 0 ? "entityCreated" : "entityUpdated", "table", entities.get(i % entities.size()),
                    1_700_000_000_000L + i, ",\"entity\":{\"connection\":{\"config\":{\"password\":\"pw\"}}}")))
                    .append("::jsonb);\n");
            if (i % 10 == 9) {
                batch.append("COMMIT;\nBEGIN;\n");
            }
        }
        batch.append("COMMIT;");
        pg.execute(batch.toString());
        String fqn = "svc.pipeline-" + RUN;
        insertStatus(fqn, Rows.status(fqn, "run-1", "running", 1_700_000_001_000L));
        insertStatus(fqn, Rows.status(fqn, "run-1", "success", 1_700_000_002_000L));
        insert("{\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"" + entities.get(0)
                + "\",\"timestamp\":3}"); // no id: a dead letter on both

        for (String topic : List.of("changes", "pipeline-status", "cdc-dlq")) {
            int expected = switch (topic) {
                case "changes" -> ids.size();
                case "pipeline-status" -> 2;
                default -> 1;
            };
            Map<String, List<ConsumerRecord<String, String>>> fromEmbedded = awaitMine(EMBEDDED + topic, expected);
            Map<String, List<ConsumerRecord<String, String>>> fromConnect = awaitMine(CONNECT + topic, expected);
            assertEquals(fromEmbedded.keySet(), fromConnect.keySet(), topic + ": the same keys");
            for (String key : fromEmbedded.keySet()) {
                List<ConsumerRecord<String, String>> e = fromEmbedded.get(key);
                List<ConsumerRecord<String, String>> c = fromConnect.get(key);
                assertEquals(e.stream().map(r -> comparable(r.value())).toList(),
                        c.stream().map(r -> comparable(r.value())).toList(),
                        topic + " key " + key + ": the same values in the same order");
                for (int i = 0; i < e.size(); i++) {
                    assertEquals(headers(e.get(i), true), headers(c.get(i), true), topic + ": the same headers");
                    Map<String, String> embeddedHeaders = headers(e.get(i), false);
                    Map<String, String> connectHeaders = headers(c.get(i), false);
                    for (String name : PER_CAPTURE) {
                        assertTrue(embeddedHeaders.containsKey(name) && connectHeaders.containsKey(name),
                                topic + ": both carry " + name + ": " + embeddedHeaders + " / " + connectHeaders);
                    }
                    assertNotEquals(embeddedHeaders.get("traceparent"), connectHeaders.get("traceparent"),
                            "a new trace per capture");
                }
            }
        }
    }

    /** Records of this test's rows on {@code topic} (read committed), by key in offset order, once all are there. */
    private static Map<String, List<ConsumerRecord<String, String>>> awaitMine(String topic, int expected) {
        Map<String, List<ConsumerRecord<String, String>>> byKey = new TreeMap<>();
        try (TopicReader reader = new TopicReader(broker, topic, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"))) {
            AtomicInteger seen = new AtomicInteger();
            await(topic).atMost(Duration.ofSeconds(90)).until(() -> {
                seen.set((int) reader.poll().stream().filter(ConnectClusterIT::mine).count());
                return seen.get() >= expected;
            });
            reader.poll().stream().filter(ConnectClusterIT::mine)
                    .forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
            assertEquals(expected, seen.get(), topic + ": each row once");
        }
        return byKey;
    }

    /** Rows of the comparison test: timestamps from 1_700_000_000_000 on (the probe and the kill test use others). */
    private static boolean mine(ConsumerRecord<String, String> r) {
        JsonNode v = TopicReader.parse(r.value());
        long ts = v.path("timestamp").asLong(v.path("captureTimeMs").asLong());
        if (v.has("rawRow")) {
            return v.path("rawRow").asText().matches("(?s).*\"timestamp\": ?3[,}].*");
        }
        return ts >= 1_700_000_000_000L && ts < 1_800_000_000_000L;
    }

    /** The value without what differs per capture (the capture time of an envelope or a dead letter). */
    private static JsonNode comparable(String value) {
        JsonNode v = TopicReader.parse(value);
        if (v.path("source") instanceof ObjectNode source) {
            source.remove("captureTimeMs");
        }
        if (v instanceof ObjectNode o && o.has("rawRow")) {
            o.remove("timestamp"); // a dead letter's time is its capture time
        }
        return v;
    }

    /** Header name → value; {@code stable}: without the per-capture and the embedded-only ones. */
    private static Map<String, String> headers(ConsumerRecord<String, String> r, boolean stable) {
        Map<String, String> h = new TreeMap<>();
        for (Header header : r.headers()) {
            if (stable && (EMBEDDED_ONLY.contains(header.key()) || PER_CAPTURE.contains(header.key()))) {
                continue;
            }
            h.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
        return h;
    }

    @Test
    void killingTheWorkerThatRunsTheTaskMovesItAndLosesNothing() throws Exception {
        String before = taskWorker();
        ConnectWorker running = WORKERS.stream().filter(w -> w.workerId().equals(before)).findFirst().orElseThrow();
        List<String> entities = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            entities.add(UUID.randomUUID().toString());
        }
        List<String> ids = new ArrayList<>();
        long base = 1_900_000_000_000L;
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 2_000; i++) {
                String id = UUID.randomUUID().toString();
                synchronized (ids) {
                    ids.add(id);
                }
                insert(Rows.changeEvent(id, "entityUpdated", "table", entities.get(i % entities.size()), base + i,
                        ""));
            }
        }, "connect-it-writer");
        writer.start();
        await("rows flowing").atMost(Duration.ofSeconds(60)).until(() -> {
            synchronized (ids) {
                return ids.size() > 600;
            }
        });
        running.kill();
        await("task moved").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    String now = taskWorker();
                    return now != null && !now.equals(before);
                });
        writer.join(120_000);

        try (TopicReader reader = new TopicReader(broker, CONNECT + "changes",
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            Set<String> wanted = new TreeSet<>(ids);
            Map<String, List<JsonNode>> byId = new HashMap<>();
            await("every row after the move").atMost(Duration.ofSeconds(120)).until(() -> {
                byId.clear();
                for (ConsumerRecord<String, String> r : reader.poll()) {
                    JsonNode v = TopicReader.parse(r.value());
                    if (wanted.contains(v.path("id").asText())) {
                        byId.computeIfAbsent(v.path("id").asText(), k -> new ArrayList<>()).add(v);
                    }
                }
                return byId.keySet().containsAll(wanted);
            });
            long repeats = byId.values().stream().mapToLong(l -> l.size() - 1).sum();
            for (List<JsonNode> sightings : byId.values()) {
                JsonNode first = comparable(sightings.get(0).toString());
                for (JsonNode again : sightings) {
                    assertEquals(first, comparable(again.toString()), "a repeat is the same event, same position");
                }
            }
            // per entity, first sightings in commit order
            Map<String, Long> lastOffset = new HashMap<>();
            Set<String> firstSeen = new java.util.HashSet<>();
            for (ConsumerRecord<String, String> r : reader.poll()) {
                JsonNode v = TopicReader.parse(r.value());
                String id = v.path("id").asText();
                if (!wanted.contains(id) || !firstSeen.add(id)) {
                    continue;
                }
                long offset = v.path("source").path("sourceOffset").asLong();
                Long previous = lastOffset.put(r.key(), offset);
                assertTrue(previous == null || previous < offset, "entity " + r.key() + " in commit order");
            }
            // exactly-once source support (the shipped worker file enables it): the task writes in transactions
            try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", broker.bootstrapServers()))) {
                List<String> transactional = admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                        .map(TransactionListing::transactionalId).toList();
                assertTrue(transactional.stream().anyMatch(id -> id.contains(CONNECTOR)),
                        "a transactional producer of the task: " + transactional);
            }
            System.out.println("ConnectClusterIT: task moved from " + before + " to " + taskWorker() + "; "
                    + wanted.size() + " rows, " + repeats + " repeats (read_committed)");
        }
    }
}
