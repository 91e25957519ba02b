package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service commands' config handling: file + environment overrides, --print-config masks secrets. */
class ServiceCommandIT {

    @Test
    void cdcPrintsTheEffectiveConfigWithEnvironmentOverridesAndMaskedPassword(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cdc.properties");
        Files.writeString(file, "database.name=metadata\ndatabase.user=cdc\ndatabase.password=file-secret\n"
                + "kafka.bootstrap.servers=k:9092\n");
        Cli.Result r = Cli.run(Map.of("CS_CDC_DATABASE_HOST", "db.internal", "CS_CDC_DATABASE_PASSWORD", "env-secret"),
                "cdc", "--config", file.toString(), "--print-config");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("database.host = db.internal"), r.out());
        assertTrue(r.out().contains("database.password = ******"), r.out());
        assertTrue(r.out().contains("capture.pollIntervalMs = 10"), "defaults are shown too: " + r.out());
        assertFalse(r.out().contains("secret"), r.out());
    }

    @Test
    void logsPrintsTheEffectiveConfigWithMaskedTokens(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("logs.properties");
        Files.writeString(file, "storage.root=" + dir + "\nauth.tokens=viewer-token\n");
        Cli.Result r = Cli.run(Map.of("LOG_TAILER_HTTP_PORT", "9999"), "logs", "--config", file.toString(),
                "--print-config");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("httpPort = 9999"), r.out());
        assertTrue(r.out().contains("authTokens = ******"), r.out());
        assertFalse(r.out().contains("viewer-token"), r.out());
    }

    @Test
    void alertsMasksTheBearerTokenAndKafkaSecrets(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alerts.properties");
        Files.writeString(file, "kafka.bootstrap.servers=k:9092\nkafka.security.protocol=SASL_SSL\n"
                + "kafka.sasl.mechanism=PLAIN\nhttp.port=8591\n");
        Cli.Result r = Cli.run(Map.of("ALERTS_ADMIN_BEARER_TOKEN", "admin-secret-0123456789",
                        "ALERTS_KAFKA_SASL_JAAS_CONFIG", "PlainLoginModule required password=\"kafka-secret\";"),
                "alerts", "--config", file.toString(), "--print-config");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("kafka.security.protocol = SASL_SSL"), r.out());
        assertTrue(r.out().contains("kafka.sasl.jaas.config = ******"), r.out());
        assertTrue(r.out().contains("httpPort = 8591"), r.out());
        assertFalse(r.out().contains("secret"), r.out());
    }

    @Test
    void aBadSettingIsAUsageErrorNamingIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cdc.properties");
        Files.writeString(file, "database.name=metadata\ndatabase.user=cdc\nkafka.bootstrap.servers=k:9092\n"
                + "database.kind=oracle\n");
        Cli.Result r = Cli.run(Map.of(), "cdc", "--config", file.toString(), "--print-config");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("database.kind"), r.err());
        Cli.Result missing = Cli.run(Map.of(), "logs", "--config", dir.resolve("nope").toString());
        assertEquals(2, missing.code());
    }
}
