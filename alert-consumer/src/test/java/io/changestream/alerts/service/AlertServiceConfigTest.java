package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AlertServiceConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", "localhost:9092");
        s.put("admin.bearerToken", "a-token-of-sixteen-chars");
        return s;
    }

    @Test
    void defaultsCoverEverySettingAndTheRuntimeReadsBothTopics() {
        AlertServiceConfig c = AlertServiceConfig.from(minimal(), Map.of());
        assertEquals("cs.", c.namespace());
        assertEquals("changestream-alerts", c.groupId());
        assertEquals(8080, c.httpPort());
        assertEquals(List.of("cs.changes", "cs.pipeline-status"), c.runtime().topics());
        assertEquals("changestream-alerts", c.runtime().groupId());
        assertEquals(AlertServiceConfig.LANES.defaultOrFail(), c.runtime().lanes());
        assertEquals(AlertServiceConfig.MAX_ATTEMPTS.defaultOrFail(), c.runtime().maxAttempts());
        assertEquals("cs.alert-ledger", c.ledger().topic());
        assertEquals(Duration.ofHours(24), c.ledger().dedupeHorizon());
        assertEquals(64L * 1024 * 1024, c.ledger().windowMaxBytes());
        assertEquals(4, c.ledger().rebuildThreads());
        assertEquals(java.util.Set.of(), c.pipeline().atMostOnceTypes());
        assertEquals(Duration.ofSeconds(30), c.pipeline().releaseTimeout());
        assertEquals(1_000_000, c.ledger().rebuildMaxRecords());
        assertEquals("cs.subscriptions", c.subscriptions().topic());
        assertEquals(null, c.destinations().smtp());
        assertFalse(c.destinations().http().allowPrivateAddresses());
    }

    @Test
    void atMostOnceTypesUseThePlatformNamesAndTheReleaseWaitFitsThePollInterval() {
        Map<String, String> s = new HashMap<>(minimal());
        s.put("delivery.atMostOnceTypes", "Email, Slack");
        assertEquals(java.util.Set.of(io.changestream.topics.model.SubscriptionType.EMAIL,
                io.changestream.topics.model.SubscriptionType.SLACK),
                AlertServiceConfig.from(s, Map.of()).pipeline().atMostOnceTypes());
        s.put("delivery.atMostOnceTypes", "Pigeon");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> AlertServiceConfig.from(s, Map.of()));
        assertTrue(bad.getMessage().contains("delivery.atMostOnceTypes"), bad.getMessage());
        s.remove("delivery.atMostOnceTypes");
        s.put("pipeline.releaseTimeout", "PT60S");
        s.put("runtime.kafka.max.poll.interval.ms", "60000");
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class, () -> AlertServiceConfig.from(s, Map.of()));
        assertTrue(tooLong.getMessage().contains("pipeline.releaseTimeout"), tooLong.getMessage());
    }

    @Test
    void aRequestDeadlineNotBelowTheProcessingTimeoutIsRefusedAtStartAndTheBulkheadSettingsAreRead() {
        Map<String, String> s = new HashMap<>(minimal());
        s.put("delivery.maxRequestTime", "PT2M");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AlertServiceConfig.from(s, Map.of()));
        assertTrue(refused.getMessage().contains("delivery.maxRequestTime")
                && refused.getMessage().contains("runtime.processingTimeout"), refused.getMessage());
        s.put("delivery.maxRequestTime", "PT45S");
        s.put("delivery.stallTimeout", "PT2S");
        s.put("delivery.maxQueueWait", "PT20S");
        AlertServiceConfig c = AlertServiceConfig.from(s, Map.of());
        assertEquals(java.time.Duration.ofSeconds(45), c.destinations().http().maxRequestTime());
        assertEquals(java.time.Duration.ofSeconds(2), c.delivery().stallTimeout());
        assertEquals(java.time.Duration.ofSeconds(20), c.delivery().maxQueueWait());
    }

    @Test
    void aProducerDeliveryTimeoutNotBelowTheAckWaitIsRefusedAtStart() {
        Map<String, String> s = new HashMap<>(minimal());
        s.put("kafka.delivery.timeout.ms", "120000"); // Kafka's default: a write given up after 10 s lands later
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AlertServiceConfig.from(s, Map.of()));
        assertTrue(refused.getMessage().contains("kafka.delivery.timeout.ms")
                && refused.getMessage().contains("ledger.ackTimeout"), refused.getMessage());
        s.put("ledger.ackTimeout", "PT3M");
        AlertServiceConfig.from(s, Map.of()); // below the wait: accepted
    }

    @Test
    void environmentOverridesFileKeysAndAddsKafkaProperties(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alerts.properties");
        Files.writeString(file, "kafka.bootstrap.servers=file:9092\nadmin.bearerToken=file-token-0123456789\n"
                + "ledger.rebuildMaxRecords=5000\nruntime.lanes=4\n");
        AlertServiceConfig c = AlertServiceConfig.load(file, Map.of(
                "ALERTS_KAFKA_BOOTSTRAP_SERVERS", "env:9092",
                "ALERTS_ADMIN_BEARER_TOKEN", "env-token-0123456789abc",
                "ALERTS_LEDGER_REBUILD_MAX_RECORDS", "7000",
                "ALERTS_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "ALERTS_HTTP_PORT", "0",
                "OTHER_VARIABLE", "ignored"));
        assertEquals("env:9092", c.kafka().get("bootstrap.servers"));
        assertEquals("SASL_SSL", c.kafka().get("security.protocol"));
        assertEquals("SASL_SSL", c.runtime().kafka().get("security.protocol"));
        assertEquals("env-token-0123456789abc", c.admin().bearerToken());
        assertEquals(7_000, c.ledger().rebuildMaxRecords());
        assertEquals(4, c.runtime().lanes());
        assertEquals(0, c.httpPort());
    }

    @Test
    void badSettingsAreRefusedNamingTheSetting() {
        Map<String, String> noToken = minimal();
        noToken.remove("admin.bearerToken");
        assertTrue(message(noToken).contains("admin.bearerToken"));
        Map<String, String> unknown = minimal();
        unknown.put("ledger.rebuildMaxRecord", "1");
        assertTrue(message(unknown).contains("unknown setting ledger.rebuildMaxRecord"));
        Map<String, String> badDuration = minimal();
        badDuration.put("ledger.rebuildTimeout", "soon");
        assertTrue(message(badDuration).contains("ledger.rebuildTimeout"));
        Map<String, String> badPort = minimal();
        badPort.put("http.port", "70000");
        assertTrue(message(badPort).contains("http.port"));
        Map<String, String> badBool = minimal();
        badBool.put("destinations.allowPrivateAddresses", "yes");
        assertTrue(message(badBool).contains("destinations.allowPrivateAddresses"));
        Map<String, String> noBootstrap = minimal();
        noBootstrap.remove("kafka.bootstrap.servers");
        assertTrue(message(noBootstrap).contains("kafka.bootstrap.servers"));
    }

    @Test
    void smtpSettingsWithoutAHostAreAcceptedAndUnused() {
        // the shipped manifests wire ALERTS_SMTP_PASSWORD from an optional secret while the ConfigMap sets no host
        AlertServiceConfig c = AlertServiceConfig.from(minimal(), Map.of("ALERTS_SMTP_PASSWORD", "",
                "ALERTS_SMTP_PORT", "not-a-port"));
        assertEquals(null, c.destinations().smtp(), "no host: no e-mail destinations");
        assertThrows(IllegalArgumentException.class, () -> AlertServiceConfig.from(minimal(),
                Map.of("ALERTS_SMTP_HOST", "mail.example.com", "ALERTS_SMTP_FROM", "a@example.com",
                        "ALERTS_SMTP_PORT", "not-a-port")), "with a host the port is read and checked");
    }

    @Test
    void printedConfigMasksEverySecret() {
        Map<String, String> s = minimal();
        s.put("admin.bearerToken", "bearer-secret-0123456789");
        s.put("kafka.sasl.jaas.config", "PlainLoginModule required password=\"jaas-secret\";");
        s.put("kafka.ssl.truststore.password", "trust-secret");
        s.put("smtp.host", "mail.example.com");
        s.put("smtp.from", "alerts@example.com");
        s.put("smtp.password", "smtp-secret");
        String printed = AlertServiceConfig.from(s, Map.of()).toString();
        for (String secret : List.of("bearer-secret", "jaas-secret", "trust-secret", "smtp-secret")) {
            assertFalse(printed.contains(secret), secret + " leaked: " + printed);
        }
        assertTrue(printed.contains("mail.example.com"));
    }

    private static String message(Map<String, String> settings) {
        return assertThrows(IllegalArgumentException.class, () -> AlertServiceConfig.from(settings, Map.of()))
                .getMessage();
    }

    @Test
    void rateLimitLineageAndPlatformSettingsAreReadMaskedAndNamedWhenBad() {
        Map<String, String> s = minimal();
        s.put("destinations.rateLimit.slack", "off");
        s.put("destinations.rateLimit.webhook", "5000/min");
        s.put("lineage.statuses", "failed");
        s.put("lineage.namespace", "prod");
        s.put("destinations.platformUrl", "https://metadata.example.com");
        AlertServiceConfig c = AlertServiceConfig.from(s, Map.of(
                "ALERTS_DESTINATIONS_PLATFORM_BEARER_TOKEN", "platform-jwt-secret-value"));
        var d = c.destinations();
        assertEquals("off", d.rateLimits().defaultFor(io.changestream.topics.model.SubscriptionType.SLACK).toString());
        assertEquals("5000/min", d.rateLimits().defaultFor(io.changestream.topics.model.SubscriptionType.GENERIC)
                .toString());
        assertEquals("4/s", d.rateLimits().defaultFor(io.changestream.topics.model.SubscriptionType.MS_TEAMS)
                .toString());
        assertEquals(java.util.Set.of(io.changestream.topics.model.PipelineState.FAILED), d.lineage().statuses());
        assertEquals("prod", d.lineage().namespace());
        assertEquals("https://metadata.example.com", d.lineage().platformUrl().toString());
        assertEquals("platform-jwt-secret-value", d.platform().bearerToken());
        assertEquals("https://metadata.example.com", d.platform().url().toString());
        assertFalse(c.toString().contains("platform-jwt-secret-value"), c.toString());

        Map<String, String> bad = minimal();
        bad.put("destinations.rateLimit.gChat", "fast");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AlertServiceConfig.from(bad, Map.of()))
                .getMessage().contains("destinations.rateLimit.gChat"));
        Map<String, String> badState = minimal();
        badState.put("lineage.statuses", "failed,exploded");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AlertServiceConfig.from(badState, Map.of()))
                .getMessage().contains("lineage.statuses"));
    }
}
