package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failover against one real PostgreSQL, the connector as child JVMs. Standby: the replication slot admits one reader;
 * the standby retries it and takes over within seconds of a SIGKILL. Crash safety: 10,000 rows inserted while the
 * connector (a child JVM) is SIGKILLed twice and restarted. Every row's
 * event id must reach {@code changes}, per-entity order must hold (after dropping repeats by event id), repeats must
 * carry the same source offset, and the last instance must stop on SIGTERM with exit 0 within 10 s.
 */
class PostgresFailoverIT {

    private static final int ROWS = 10_000;
    private static final int ENTITIES = 50;
    private static final int ROWS_PER_TX = 20;

    private static PostgresDatabase pg;
    private static KafkaBroker broker;

    @BeforeAll
    static void start() {
        pg = PostgresDatabase.start();
        pg.executeResource("io/changestream/cdc/sql/postgres.sql");
        broker = Brokers.shared();
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void standbyTakesTheSlotWithinSecondsAfterTheActiveInstanceIsKilled() throws Exception {
        String ns = "pg-standby-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> settings = new HashMap<>(Configs.postgres(pg, broker, ns, "cs_standby"));
        settings.put("postgres.slot.max.retries", "1000000");
        settings.put("postgres.slot.retry.delay.ms", "500");
        StandbyTakeover.run("postgres", broker, ns, settings,
                json -> pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(json) + "::jsonb)"),
                Duration.ofSeconds(20));
    }

    @Test
    void tenThousandRowsSurviveTwoKillsWithoutLossAndInOrderPerEntity() throws Exception {
        String ns = "crash-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> settings = new HashMap<>(Configs.postgres(pg, broker, ns, "cs_crash"));
        List<String> entities = new ArrayList<>();
        for (int i = 0; i < ENTITIES; i++) {
            entities.add(UUID.randomUUID().toString());
        }
        AtomicInteger committed = new AtomicInteger();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            ids.add(UUID.randomUUID().toString());
        }
        ConnectorProcess first = ConnectorProcess.start("crash-1", settings);
        first.awaitReady(Duration.ofSeconds(90));
        CompletableFuture<Void> inserts = CompletableFuture.runAsync(() -> insertAll(ids, entities, committed));
        ConnectorProcess second = null;
        ConnectorProcess third = null;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> committed.get() >= ROWS * 3 / 10);
            first.kill();
            second = ConnectorProcess.start("crash-2", settings);
            second.awaitReady(Duration.ofSeconds(90));
            await().atMost(Duration.ofSeconds(60)).until(() -> committed.get() >= ROWS * 7 / 10);
            second.kill();
            third = ConnectorProcess.start("crash-3", settings);
            third.awaitReady(Duration.ofSeconds(90));
            inserts.get(120, TimeUnit.SECONDS);

            Set<String> expected = new HashSet<>(ids);
            Map<String, JsonNode> firstById = new LinkedHashMap<>();
            Map<String, Long> offsetById = new HashMap<>();
            int[] records = {0};
            try (TopicReader reader = new TopicReader(broker, ns + "changes")) {
                await().atMost(Duration.ofSeconds(120)).until(() -> {
                    List<JsonNode> values = reader.values();
                    for (int i = records[0]; i < values.size(); i++) {
                        JsonNode v = values.get(i);
                        String id = v.path("id").asText();
                        long offset = v.at("/source/sourceOffset").asLong();
                        Long seen = offsetById.putIfAbsent(id, offset);
                        assertTrue(seen == null || seen == offset, "a repeat of " + id + " has another source offset");
                        firstById.putIfAbsent(id, v);
                    }
                    records[0] = values.size();
                    return firstById.keySet().containsAll(expected);
                });
            }
            assertEquals(expected, firstById.keySet(), "every row's event id, nothing else");
            Map<String, Long> lastOffsetByEntity = new HashMap<>();
            // the topic is partitioned by entity: order per entity is the order within its partition
            for (JsonNode v : firstById.values()) {
                long offset = v.at("/source/sourceOffset").asLong();
                Long previous = lastOffsetByEntity.put(v.path("entityId").asText(), offset);
                assertTrue(previous == null || previous < offset, "per-entity order broken at " + v.path("id"));
            }
            int duplicates = records[0] - ROWS;
            String report = "crash-safety: rows=" + ROWS + " records=" + records[0] + " duplicates=" + duplicates
                    + " kills=2";
            System.out.println(report);
            Files.writeString(Path.of("target", "crash-safety.txt"), report + "\n");

            assertEquals(0, third.terminate(Duration.ofSeconds(10)), "SIGTERM: graceful stop, exit 0 within 10 s");
        } finally {
            inserts.cancel(true);
            first.close();
            if (second != null) {
                second.close();
            }
            if (third != null) {
                third.close();
            }
        }
    }

    private static void insertAll(List<String> ids, List<String> entities, AtomicInteger committed) {
        try (Connection c = pg.connection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < ids.size(); i++) {
                insert.setString(1, Rows.changeEvent(ids.get(i), "entityUpdated", "table",
                        entities.get(i % entities.size()), 1_700_000_000_000L + i, ""));
                insert.addBatch();
                if ((i + 1) % ROWS_PER_TX == 0) {
                    insert.executeBatch();
                    c.commit();
                    committed.set(i + 1);
                    // pace the writer (~2,000 rows/s) so the kills land mid-stream
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("inserting rows failed", e);
        }
    }
}
