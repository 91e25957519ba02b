package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.CdcException;
import io.changestream.cdc.transform.RowOutcome;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.SaslBroker;
import io.changestream.testkit.MariaDbServer;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The connector against a broker that only speaks SASL_PLAINTEXT/PLAIN: the {@code kafka.*} client properties (from
 * the file, the JAAS secret from the environment) reach the producer, the topic admin, the lease consumer and the
 * Debezium engine's offset store and schema history; wrong credentials fail the start with a clear message and no secret anywhere in the logs.
 */
class SaslCaptureIT {

    private static final String NS = "sasl-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";

    private static PostgresDatabase pg;
    private static KafkaBroker broker;
    private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();

    @BeforeAll
    static void start() {
        LOGS.start();
        root().addAppender(LOGS);
        pg = PostgresDatabase.start();
        pg.executeResource("io/changestream/cdc/sql/postgres.sql");
        broker = SaslBroker.start();
    }

    @AfterAll
    static void stop() {
        root().detachAppender(LOGS);
        if (broker != null) {
            broker.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    /** A config file with the SASL settings but no secret; the JAAS line comes from {@code CS_CDC_*} as in production. */
    private static CdcConfig load(Path dir, String slot, String password) throws Exception {
        Map<String, String> settings = Configs.postgres(pg, broker, NS, slot);
        settings.put("postgres.slot.drop.on.stop", "true");
        return load(dir, settings, password);
    }

    private static CdcConfig load(Path dir, Map<String, String> settings, String password) throws Exception {
        settings.put("kafka.security.protocol", "SASL_PLAINTEXT");
        settings.put("kafka.sasl.mechanism", "PLAIN");
        Path file = dir.resolve(settings.get("connector.name") + ".properties");
        Files.writeString(file, settings.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n")));
        return CdcConfig.load(file, Map.of("CS_CDC_KAFKA_SASL_JAAS_CONFIG", SaslBroker.jaas(SaslBroker.USER, password)));
    }

    @Test
    void aRowReachesTheChangesTopicAndTheEngineCommitsOffsetsOnTheSaslCluster(@TempDir Path dir) throws Exception {
        TopicCatalog catalog = new TopicCatalog(NS);
        Map<String, Object> sasl = SaslBroker.client(broker, SaslBroker.USER, SaslBroker.PASSWORD);
        String entity = UUID.randomUUID().toString();
        long started = System.nanoTime();
        try (CdcConnector connector = new CdcConnector(load(dir, "cs_sasl_it", SaslBroker.PASSWORD)).start();
             TopicReader changes = new TopicReader(broker, catalog.changes().name(), sasl);
             TopicReader offsets = new TopicReader(broker, catalog.cdcOffsets().name(), sasl)) {
            await().atMost(Duration.ofSeconds(30)).until(connector::streaming);
            pg.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(Rows.changeEvent(
                    UUID.randomUUID().toString(), "entityCreated", "table", entity, System.currentTimeMillis(), ""))
                    + "::jsonb)");
            await().atMost(Duration.ofSeconds(20)).until(() -> changes.values().stream()
                    .anyMatch(v -> entity.equals(v.path("entityId").asText())));
            await().atMost(Duration.ofSeconds(20)).until(() -> !offsets.poll().isEmpty());
            assertEquals(1, connector.metrics().count(RowOutcome.PRODUCED), "one envelope produced");
        }
        System.out.printf("SaslCaptureIT: start + capture + offsets commit over SASL in %d ms%n",
                Duration.ofNanos(System.nanoTime() - started).toMillis());
        assertNoSecretLogged(SaslBroker.PASSWORD);
    }

    @Test
    void mariaDbCaptureWithTheLeaseAndSchemaHistoryOnTheSaslCluster(@TempDir Path dir) throws Exception {
        String ns = "sasl-maria-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        TopicCatalog catalog = new TopicCatalog(ns);
        Map<String, Object> sasl = SaslBroker.client(broker, SaslBroker.USER, SaslBroker.PASSWORD);
        String entity = UUID.randomUUID().toString();
        try (MariaDbServer db = MariaDbServer.start()) {
            db.executeResource("io/changestream/cdc/sql/mysql.sql");
            CdcConfig config = load(dir, Configs.mariadb(db, broker, ns, "cs-sasl-maria"), SaslBroker.PASSWORD);
            assertTrue(config.standby().leaseEnabled(), "MariaDB holds the group lease");
            long started = System.nanoTime();
            try (CdcConnector connector = new CdcConnector(config).start();
                 TopicReader changes = new TopicReader(broker, catalog.changes().name(), sasl);
                 TopicReader history = new TopicReader(broker, catalog.cdcSchemaHistory().name(), sasl)) {
                await().atMost(Duration.ofSeconds(45)).until(connector::streaming);
                db.execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(Rows.changeEvent(
                        UUID.randomUUID().toString(), "entityCreated", "table", entity, 1L, "")) + ")");
                await().atMost(Duration.ofSeconds(20)).until(() -> changes.values().stream()
                        .anyMatch(v -> entity.equals(v.path("entityId").asText())));
                await().atMost(Duration.ofSeconds(10)).until(() -> !history.poll().isEmpty());
                System.out.printf("SaslCaptureIT: MariaDB lease + schema history + capture over SASL in %d ms%n",
                        Duration.ofNanos(System.nanoTime() - started).toMillis());
            }
        }
        assertNoSecretLogged(SaslBroker.PASSWORD);
    }

    @Test
    void wrongCredentialsFailTheStartLoudlyWithoutTheSecret(@TempDir Path dir) throws Exception {
        String wrong = "wrong-secret-" + UUID.randomUUID();
        CdcConfig config = load(dir, "cs_sasl_bad", wrong);
        assertFalse(config.toString().contains(wrong), config.toString());
        CdcConnector connector = new CdcConnector(config);
        try {
            long started = System.nanoTime();
            CdcException e = assertThrows(CdcException.class, connector::start);
            System.out.printf("SaslCaptureIT: wrong credentials refused in %d ms: %s%n",
                    Duration.ofNanos(System.nanoTime() - started).toMillis(), e.getMessage());
            assertTrue(e.getMessage().toLowerCase().contains("authentication"), e.getMessage());
            assertFalse(e.getMessage().contains(wrong), e.getMessage());
        } finally {
            connector.close();
        }
        assertNoSecretLogged(wrong);
    }

    private static void assertNoSecretLogged(String secret) {
        String logged = LOGS.list.stream().map(e -> e.getFormattedMessage()
                + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage()))
                .collect(Collectors.joining("\n"));
        assertFalse(LOGS.list.isEmpty(), "the connector logged");
        assertFalse(logged.contains(secret), "a Kafka secret reached the logs");
    }
}
