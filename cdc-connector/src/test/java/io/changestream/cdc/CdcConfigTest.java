package io.changestream.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.engine.DebeziumProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdcConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> s = new HashMap<>();
        s.put("database.name", "openmetadata_db");
        s.put("database.user", "cdc");
        s.put("database.password", "s3cret-pw");
        s.put("kafka.bootstrap.servers", "kafka:9092");
        return s;
    }

    @Test
    void defaultsAreDocumentedValues() {
        CdcConfig config = CdcConfig.fromMap(minimal());
        assertEquals("postgres", config.database().kind());
        assertEquals(5432, config.database().port());
        assertEquals("no_data", config.capture().snapshotMode());
        assertEquals(10, config.capture().pollIntervalMs());
        assertEquals(5_000, config.capture().heartbeatIntervalMs());
        assertFalse(config.standby().leaseEnabled(), "Postgres: the slot is the lease");
        assertEquals("cs.", config.transform().topicNamespace());
        assertTrue(config.transform().markSkipped(), "embedded form counts skipped rows");
        Map<String, String> maria = minimal();
        maria.put("database.kind", "mariadb");
        CdcConfig mariadb = CdcConfig.fromMap(maria);
        assertEquals(3306, mariadb.database().port());
        assertTrue(mariadb.standby().leaseEnabled());
    }

    @Test
    void fileIsOverriddenByEnvironment(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cdc.properties");
        Files.writeString(file, "database.name=db\ndatabase.user=u\nkafka.bootstrap.servers=k:9092\n"
                + "snapshot.mode=never\n");
        CdcConfig config = CdcConfig.load(file, Map.of("CS_CDC_DATABASE_PASSWORD", "from-env",
                "CS_CDC_SNAPSHOT_MODE", "initial", "PATH", "/usr/bin"));
        assertEquals("from-env", config.database().password());
        assertEquals("initial", config.capture().snapshotMode());
    }

    @Test
    void theShippedExampleConfigIsValid() {
        CdcConfig config = CdcConfig.load(Path.of("cdc.example.properties"), Map.of("CS_CDC_DATABASE_PASSWORD", "x"));
        assertEquals("openmetadata_db", config.database().name());
        assertEquals(2, config.transform().maskPointers().size());
    }

    @Test
    void neverIsAnAliasOfNoData() {
        Map<String, String> s = minimal();
        s.put("snapshot.mode", "never");
        assertEquals("no_data", CdcConfig.fromMap(s).capture().snapshotMode());
    }

    @Test
    void badOrUnknownSettingsFailNamingTheSetting() {
        for (String[] bad : new String[][] {
                {"poll.interval.ms", "fast"}, {"poll.interval.ms", "0"}, {"database.kind", "oracle"},
                {"snapshot.mode", "always"}, {"postgres.slot.name", "Bad-Slot"}, {"max.queue.size", "10"},
                {"kafka.create.topics", "yes"}, {"databse.host", "typo"}, {"max.row.bytes", "2000000"}}) {
            Map<String, String> s = minimal();
            s.put(bad[0], bad[1]);
            String expected = bad[0].equals("max.queue.size") ? "max.queue.size" : bad[0];
            CdcException e = assertThrows(CdcException.class, () -> CdcConfig.fromMap(s), bad[0]);
            assertTrue(e.getMessage().contains(expected), e.getMessage());
        }
        Map<String, String> missing = minimal();
        missing.remove("kafka.bootstrap.servers");
        assertTrue(assertThrows(CdcException.class, () -> CdcConfig.fromMap(missing)).getMessage()
                .contains("kafka.bootstrap.servers"));
    }

    @Test
    void thePasswordIsNeverInToString() {
        CdcConfig config = CdcConfig.fromMap(minimal());
        assertFalse(config.toString().contains("s3cret-pw"), config.toString());
        assertTrue(config.toString().contains("password=******"));
    }

    @Test
    void debeziumPropertiesCaptureOnlyThePlatformTablesWithOffsetsInKafka() {
        Map<String, String> s = minimal();
        s.put("mask.pointers", "/connection/config/password");
        Properties pg = DebeziumProperties.of(CdcConfig.fromMap(s));
        assertEquals("pgoutput", pg.getProperty("plugin.name"));
        assertEquals("filtered", pg.getProperty("publication.autocreate.mode"));
        assertEquals("public\\.change_event,public\\.entity_extension_time_series",
                pg.getProperty("table.include.list"));
        assertEquals("cs.cdc-offsets", pg.getProperty("offset.storage.topic"));
        assertEquals("5000", pg.getProperty("heartbeat.interval.ms"));
        assertEquals("mark", pg.getProperty("transforms.changestream.skipped.records"));
        assertEquals("/connection/config/password", pg.getProperty("transforms.changestream.mask.pointers"));
        s.put("database.kind", "mariadb");
        Properties maria = DebeziumProperties.of(CdcConfig.fromMap(s));
        assertEquals("cs.cdc-schema-history", maria.getProperty("schema.history.internal.kafka.topic"));
        assertEquals("openmetadata_db\\.change_event,openmetadata_db\\.entity_extension_time_series",
                maria.getProperty("table.include.list"));
    }

    @Test
    void kafkaClientPropertiesPassThroughFromFileAndEnvironmentMasked(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cdc.properties");
        Files.writeString(file, "database.name=db\ndatabase.user=u\nkafka.bootstrap.servers=k:9092\n"
                + "kafka.security.protocol=SASL_SSL\nkafka.sasl.mechanism=PLAIN\nkafka.replication.factor=1\n");
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                + "password=\"kafka-pw-0\";";
        CdcConfig config = CdcConfig.load(file, Map.of("CS_CDC_KAFKA_SASL_JAAS_CONFIG", jaas,
                "CS_CDC_KAFKA_SSL_TRUSTSTORE_PASSWORD", "trust-pw-1"));
        assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN", "sasl.jaas.config", jaas,
                "ssl.truststore.password", "trust-pw-1"), config.kafka().client(),
                "fixed kafka.* settings are not client properties");
        assertEquals("k:9092", config.kafka().clientProperties().get("bootstrap.servers"));
        assertFalse(config.toString().contains("kafka-pw-0") || config.toString().contains("trust-pw-1"),
                config.toString());
        assertTrue(config.toString().contains("security.protocol=SASL_SSL"), config.toString());

        config = CdcConfig.fromMap(Map.of("database.name", "db", "database.user", "u", "database.kind", "mariadb",
                "kafka.bootstrap.servers", "k:9092", "kafka.security.protocol", "SASL_SSL",
                "kafka.sasl.jaas.config", jaas, "kafka.heartbeat.interval.ms", "999"));
        Properties engine = DebeziumProperties.of(config);
        assertEquals("SASL_SSL", engine.getProperty("security.protocol"), "worker level: the offset store");
        assertEquals(jaas, engine.getProperty("sasl.jaas.config"));
        assertEquals("SASL_SSL", engine.getProperty("schema.history.internal.producer.security.protocol"));
        assertEquals(jaas, engine.getProperty("schema.history.internal.consumer.sasl.jaas.config"));
        assertEquals("5000", engine.getProperty("heartbeat.interval.ms"), "the engine's own keys win");
    }

    @Test
    void aClientPropertyNameThatCannotBeOneIsRefused() {
        Map<String, String> s = minimal();
        s.put("kafka.Security_Protocol", "SASL_SSL");
        CdcException e = assertThrows(CdcException.class, () -> CdcConfig.fromMap(s));
        assertTrue(e.getMessage().contains("kafka.Security_Protocol"), e.getMessage());
    }
}
