package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
        CrashWorkload rows = new CrashWorkload(ROWS, ENTITIES);
        ConnectorProcess first = ConnectorProcess.start("crash-1", settings);
        first.awaitReady(Duration.ofSeconds(90));
        // ~2,000 rows/s
        CompletableFuture<Void> inserts = rows.start(pg::connection,
                "INSERT INTO change_event (json) VALUES (?::jsonb)", ROWS_PER_TX, 10);
        ConnectorProcess second = null;
        ConnectorProcess third = null;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> rows.committed() >= ROWS * 3 / 10);
            first.kill();
            second = ConnectorProcess.start("crash-2", settings);
            second.awaitReady(Duration.ofSeconds(90));
            await().atMost(Duration.ofSeconds(60)).until(() -> rows.committed() >= ROWS * 7 / 10);
            second.kill();
            third = ConnectorProcess.start("crash-3", settings);
            third.awaitReady(Duration.ofSeconds(90));
            inserts.get(120, TimeUnit.SECONDS);

            Map<String, Long> offsetById = new HashMap<>();
            int records;
            try (TopicReader reader = new TopicReader(broker, ns + "changes")) {
                records = rows.awaitEveryIdInOrder(reader, Duration.ofSeconds(120), (r, v) -> {
                    String id = v.path("id").asText();
                    long offset = v.at("/source/sourceOffset").asLong();
                    Long seen = offsetById.putIfAbsent(id, offset);
                    assertTrue(seen == null || seen == offset, "a repeat of " + id + " has another source offset");
                }).size();
            }
            String report = "crash-safety: rows=" + ROWS + " records=" + records + " duplicates=" + (records - ROWS)
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
}
