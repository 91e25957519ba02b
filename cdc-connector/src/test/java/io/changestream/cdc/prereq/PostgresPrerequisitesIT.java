package io.changestream.cdc.prereq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.it.Configs;
import io.changestream.cdc.it.Rows;
import io.changestream.cdc.it.TopicReader;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL prerequisite check against real servers: the suite's PostgreSQL 17 (wal_level=logical) with a
 * superuser, with the README's least-privilege role (which then really captures) and with a bare role; and a cluster of
 * the same binaries started with wal_level=replica, no WAL senders and its only slot taken.
 */
class PostgresPrerequisitesIT {

    private static final String DDL = "io/changestream/cdc/sql/postgres.sql";
    private static final String NS = "pg-prereq-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    private static PostgresDatabase pg;
    private static KafkaBroker broker;

    @BeforeAll
    static void start() {
        pg = PostgresDatabase.start();
        pg.executeResource(DDL);
        broker = Brokers.shared();
    }

    @AfterAll
    static void stop() {
        if (pg != null) {
            pg.close();
        }
    }

    private static Map<String, String> settings(String user, String password, String slot) {
        Map<String, String> s = new HashMap<>(Configs.postgres(pg, broker, NS, slot));
        s.put("database.user", user);
        s.put("database.password", password);
        s.put("postgres.slot.drop.on.stop", "true");
        return s;
    }

    @Test
    void theSuitesSuperuserMeetsEveryPrerequisiteAsTheDevStackDoes() {
        Map<String, String> s = new HashMap<>(Configs.postgres(pg, broker, NS, "cs_prereq_super"));
        assertEquals(List.of(), Prerequisites.missing(CdcConfig.fromMap(s)));
    }

    @Test
    void theReadmeRoleMeetsEveryPrerequisiteAndCaptures() {
        pg.execute("CREATE ROLE cdc_reader WITH LOGIN REPLICATION PASSWORD 'reader-secret';\n"
                + "GRANT SELECT ON public.change_event, public.entity_extension_time_series TO cdc_reader;\n"
                + "CREATE PUBLICATION cs_prereq_reader FOR TABLE public.change_event, "
                + "public.entity_extension_time_series;");
        CdcConfig config = CdcConfig.fromMap(settings("cdc_reader", "reader-secret", "cs_prereq_reader"));
        assertEquals(List.of(), Prerequisites.missing(config));

        String id = UUID.randomUUID().toString();
        try (CdcConnector connector = new CdcConnector(config).start();
             TopicReader changes = new TopicReader(broker, NS + "changes")) {
            await().atMost(Duration.ofSeconds(60)).until(connector::streaming);
            pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(Rows.changeEvent(id, "entityCreated",
                    "table", UUID.randomUUID().toString(), 1_700_000_000_000L, "")) + "::jsonb)");
            await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                    .anyMatch(v -> id.equals(v.path("id").asText())));
            assertEquals(0.0, connector.metrics().errors("prerequisites"));
        }
    }

    @Test
    void aBareRoleIsToldEveryMissingGrantAtOnce() {
        pg.execute("CREATE ROLE cdc_bare WITH LOGIN PASSWORD 'bare-secret'");
        PrerequisiteException e = assertThrows(PrerequisiteException.class,
                () -> Prerequisites.require(CdcConfig.fromMap(settings("cdc_bare", "bare-secret", "cs_prereq_bare"))));
        List<String> problems = e.problems();
        assertEquals(4, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("PostgreSQL user cdc_bare lacks REPLICATION"), problems.get(0));
        assertTrue(problems.get(0).contains("ALTER ROLE cdc_bare WITH REPLICATION"), problems.get(0));
        assertTrue(problems.get(1).contains("lacks SELECT on public.change_event (GRANT SELECT ON "
                + "public.change_event TO cdc_bare)"), problems.get(1));
        assertTrue(problems.get(2).contains("lacks SELECT on public.entity_extension_time_series"), problems.get(2));
        assertTrue(problems.get(3).startsWith("PostgreSQL publication cs_prereq_bare does not exist and user cdc_bare "
                + "cannot create it (no CREATE on database postgres, does not own the tables)"), problems.get(3));
        assertTrue(problems.get(3).contains("CREATE PUBLICATION cs_prereq_bare FOR TABLE public.change_event, "
                + "public.entity_extension_time_series"), problems.get(3));
        assertTrue(e.getMessage().startsWith("database prerequisites not met on postgres localhost:" + pg.port()
                + "/postgres as user cdc_bare (4 problems"), e.getMessage());
        assertFalse(e.getMessage().contains("bare-secret"), "the password is never in the message");
    }

    @Test
    void aPublicationOfOtherTablesThatTheUserMayNotChangeIsNamed() {
        pg.execute("CREATE ROLE cdc_partial WITH LOGIN REPLICATION PASSWORD 'partial-secret';\n"
                + "GRANT SELECT ON public.change_event, public.entity_extension_time_series TO cdc_partial;\n"
                + "CREATE PUBLICATION cs_prereq_partial FOR TABLE public.change_event;");
        List<String> problems = Prerequisites.missing(
                CdcConfig.fromMap(settings("cdc_partial", "partial-secret", "cs_prereq_partial")));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("PostgreSQL publication cs_prereq_partial lists public.change_event, "
                + "not the captured tables, and user cdc_partial may not change it"), problems.get(0));
        assertTrue(problems.get(0).endsWith("ALTER PUBLICATION cs_prereq_partial SET TABLE public.change_event, "
                + "public.entity_extension_time_series"), problems.get(0));
    }

    @Test
    void aConnectorMissingAGrantKeepsItsEngineStoppedAndSaysWhyOnHealthReady() throws Exception {
        pg.execute("CREATE ROLE cdc_norepl WITH LOGIN PASSWORD 'norepl-secret';\n"
                + "GRANT SELECT ON public.change_event, public.entity_extension_time_series TO cdc_norepl;\n"
                + "CREATE PUBLICATION cs_prereq_norepl FOR TABLE public.change_event, "
                + "public.entity_extension_time_series;");
        Map<String, String> s = settings("cdc_norepl", "norepl-secret", "cs_prereq_norepl");
        s.put("restart.backoff.ms", "200");
        s.put("restart.backoff.max.ms", "400");
        HttpClient http = HttpClient.newHttpClient();
        try (CdcConnector connector = new CdcConnector(CdcConfig.fromMap(s)).start()) {
            URI ready = URI.create("http://127.0.0.1:" + connector.httpPort() + "/health/ready");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> connector.metrics().errors("prerequisites") >= 2);
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(ready).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, answer.statusCode());
            assertTrue(answer.body().contains("PostgreSQL user cdc_norepl lacks REPLICATION"), answer.body());
            assertFalse(connector.streaming());
            assertEquals(0.0, connector.metrics().errors("engine"), "the engine was never started");
            assertEquals(0, slots("cs_prereq_norepl"), "no slot was created");

            pg.execute("ALTER ROLE cdc_norepl WITH REPLICATION");
            await().atMost(Duration.ofSeconds(60)).until(connector::streaming);
        }
    }

    @Test
    void aClusterWithoutLogicalDecodingIsToldEverySettingAtOnce() throws Exception {
        try (EmbeddedPostgres replica = EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "replica")
                .setServerConfig("max_replication_slots", "1")
                .setServerConfig("max_wal_senders", "0")
                .setPGStartupWait(Duration.ofSeconds(60))
                .start()) {
            try (Connection c = replica.getPostgresDatabase().getConnection(); Statement st = c.createStatement();
                 InputStream ddl = getClass().getClassLoader().getResourceAsStream(DDL)) {
                st.execute(new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
                st.execute("SELECT pg_create_physical_replication_slot('standby_1')");
            }
            Map<String, String> s = new HashMap<>(Configs.postgres(pg, broker, NS, "cs_prereq_replica"));
            s.put("database.port", Integer.toString(replica.getPort()));
            PrerequisiteException e = assertThrows(PrerequisiteException.class,
                    () -> Prerequisites.require(CdcConfig.fromMap(s)));
            assertEquals(List.of(
                    "PostgreSQL wal_level is 'replica', logical decoding needs 'logical' (postgresql.conf "
                            + "wal_level=logical, restart)",
                    "PostgreSQL has all 1 replication slots in use (max_replication_slots=1) and none is "
                            + "cs_prereq_replica: raise max_replication_slots (restart) or drop a slot nobody reads "
                            + "(SELECT pg_drop_replication_slot('<name>'))",
                    "PostgreSQL max_wal_senders is 0: no replication connection is admitted (postgresql.conf "
                            + "max_wal_senders=10, restart)"), e.problems());
        }
    }

    private static int slots(String name) throws Exception {
        try (Connection c = pg.connection(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + name + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
