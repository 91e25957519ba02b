package io.changestream.cdc.it;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Postgres standby: the replication slot admits one reader; the standby retries it and takes over within seconds. */
class PostgresStandbyIT {

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
}
