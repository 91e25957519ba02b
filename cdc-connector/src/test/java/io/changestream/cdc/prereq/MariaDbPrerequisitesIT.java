package io.changestream.cdc.prereq;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.it.Configs;
import io.changestream.cdc.it.PlatformMariaDb;
import io.changestream.cdc.it.Rows;
import io.changestream.cdc.it.TopicReader;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.MariaDbServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The MariaDB prerequisite check against the suite's real MariaDB (Debian's mariadbd, ROW binlog): the suite's
 * account, the README's grants (which then really capture), an account with almost none, and binlog settings changed
 * at runtime with SET GLOBAL.
 */
class MariaDbPrerequisitesIT {

    private static final String NS = "maria-prereq-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    @RegisterExtension
    static final PlatformMariaDb MARIADB = new PlatformMariaDb();

    private static MariaDbServer db;
    private static KafkaBroker broker;

    @BeforeAll
    static void start() {
        db = MARIADB.db();
        broker = Brokers.shared();
    }

    private static Map<String, String> settings(String user, String password, String name) {
        Map<String, String> s = new HashMap<>(Configs.mariadb(db, broker, NS, name));
        s.put("database.user", user);
        s.put("database.password", password);
        return s;
    }

    @Test
    void theSuitesAccountMeetsEveryPrerequisite() {
        assertEquals(List.of(), Prerequisites.missing(CdcConfig.fromMap(
                settings(MariaDbServer.USER, MariaDbServer.PASSWORD, "cs-maria-prereq-suite"))));
    }

    @Test
    void theReadmeGrantsMeetEveryPrerequisiteAndCapture() {
        db.execute("CREATE USER 'cdc_reader'@'%' IDENTIFIED BY 'reader-secret';"
                + "GRANT RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'cdc_reader'@'%';"
                + "GRANT SELECT ON platform.change_event TO 'cdc_reader'@'%';"
                + "GRANT SELECT ON platform.entity_extension_time_series TO 'cdc_reader'@'%'");
        CdcConfig config = CdcConfig.fromMap(settings("cdc_reader", "reader-secret", "cs-maria-prereq-reader"));
        assertEquals(List.of(), Prerequisites.missing(config));

        String id = UUID.randomUUID().toString();
        try (CdcConnector connector = new CdcConnector(config).start();
             TopicReader changes = new TopicReader(broker, NS + "changes")) {
            // the lease, then the schema snapshot: over a minute on this shared 2-core machine under load
            await().atMost(Duration.ofSeconds(150)).until(connector::streaming);
            db.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(Rows.changeEvent(id,
                    "entityCreated", "table", UUID.randomUUID().toString(), 1_700_000_000_000L, "")) + ")");
            await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                    .anyMatch(v -> id.equals(v.path("id").asText())));
            assertEquals(0.0, connector.metrics().errors("prerequisites"));
        }
    }

    @Test
    void anAccountWithoutGrantsIsToldEachMissingOneAtOnce() {
        db.execute("CREATE USER 'cdc_bare'@'%' IDENTIFIED BY 'bare-secret';"
                + "GRANT SELECT ON platform.change_event TO 'cdc_bare'@'%'");
        PrerequisiteException e = assertThrows(PrerequisiteException.class, () -> Prerequisites.require(
                CdcConfig.fromMap(settings("cdc_bare", "bare-secret", "cs-maria-prereq-bare"))));
        List<String> problems = e.problems();
        assertEquals(5, problems.size(), problems.toString());
        List<String> grants = List.of("RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT");
        for (int i = 0; i < grants.size(); i++) {
            assertTrue(problems.get(i).startsWith("MariaDB user 'cdc_bare'@'%' lacks " + grants.get(i) + " on *.*"),
                    problems.get(i));
            assertTrue(problems.get(i).endsWith("GRANT " + grants.get(i) + " ON *.* TO 'cdc_bare'@'%'"),
                    problems.get(i));
        }
        assertEquals("MariaDB user 'cdc_bare'@'%' lacks SELECT on platform.entity_extension_time_series: GRANT "
                + "SELECT ON platform.entity_extension_time_series TO 'cdc_bare'@'%'", problems.get(4));
    }

    @Test
    void binlogSettingsChangedAtRuntimeAreEachNamed() {
        Map<String, String> s = settings(MariaDbServer.USER, MariaDbServer.PASSWORD, "cs-maria-prereq-binlog");
        s.put("database.server.id", "1"); // the server's own (the testkit's my.cnf: server_id=1)
        db.execute("SET GLOBAL binlog_format = 'STATEMENT'; SET GLOBAL binlog_row_image = 'MINIMAL';"
                + "SET GLOBAL log_bin_compress = ON");
        try {
            PrerequisiteException e = assertThrows(PrerequisiteException.class,
                    () -> Prerequisites.require(CdcConfig.fromMap(s)));
            List<String> problems = e.problems();
            assertEquals(4, problems.size(), problems.toString());
            assertTrue(problems.get(0).startsWith("MariaDB binlog_format is STATEMENT, needs ROW"), problems.get(0));
            assertTrue(problems.get(1).startsWith("MariaDB binlog_row_image is MINIMAL, needs FULL"), problems.get(1));
            assertTrue(problems.get(2).startsWith("MariaDB log_bin_compress is ON"), problems.get(2));
            assertTrue(problems.get(3).startsWith("MariaDB server_id 1 is also this connector's database.server.id"),
                    problems.get(3));
            assertTrue(e.getMessage().startsWith("database prerequisites not met on mariadb 127.0.0.1:" + db.port()
                    + "/platform as user cdc (4 problems"), e.getMessage());
        } finally {
            db.execute("SET GLOBAL binlog_format = 'ROW'; SET GLOBAL binlog_row_image = 'FULL';"
                    + "SET GLOBAL log_bin_compress = OFF");
        }
        s.remove("database.server.id");
        assertEquals(List.of(), Prerequisites.missing(CdcConfig.fromMap(s)), "restored, and a derived server id");
    }
}
