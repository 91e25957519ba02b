package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The settings of the alert service's guards (issue 12): defaults, validation naming the setting. */
class SecuritySettingsTest {

    private static Map<String, String> minimal() {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", "localhost:9092");
        s.put("admin.bearerToken", "a-token-of-sixteen-chars");
        return s;
    }

    private static AlertServiceConfig with(String key, String value) {
        Map<String, String> s = minimal();
        s.put(key, value);
        return AlertServiceConfig.from(s, Map.of());
    }

    @Test
    void theLineageKafkaAllowlistIsOneTopicInTheNamespaceByDefaultAndNeverACatalogTopic() {
        assertEquals(Set.of("cs.openlineage"), AlertServiceConfig.from(minimal(), Map.of()).destinations().lineage()
                .kafkaTopics());
        assertEquals(Set.of("t.openlineage"), with("topics.namespace", "t.").destinations().lineage().kafkaTopics());
        assertEquals(Set.of("lineage-a", "lineage-b"),
                with("destinations.lineage.kafkaTopics", "lineage-a, lineage-b").destinations().lineage()
                        .kafkaTopics());
        for (String catalogTopic : new String[] {"cs.changes", "cs.alert-ledger", "cs.subscriptions",
                "cs.alert-dlq", "cs.pipeline-status", "__consumer_offsets"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> with("destinations.lineage.kafkaTopics", "ok," + catalogTopic));
            assertTrue(e.getMessage().startsWith("destinations.lineage.kafkaTopics"), e.getMessage());
        }
    }

    @Test
    void noProxyByDefaultAndABadOneNamesTheSetting() {
        assertEquals(null, AlertServiceConfig.from(minimal(), Map.of()).destinations().http().proxy());
        assertEquals("proxy.internal:3128", with("destinations.proxy", "proxy.internal:3128").destinations().http()
                .proxy());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> with("destinations.proxy", "proxy.internal"));
        assertTrue(e.getMessage().contains("destinations.proxy"), e.getMessage());
    }

    @Test
    void regexBoundsAreSettingsWithDefaults() {
        var limits = AlertServiceConfig.from(minimal(), Map.of()).filter().limits();
        assertEquals(1_024, limits.maxPatternLength());
        assertEquals(10_000, limits.maxPatternProgram());
        assertEquals(4_096, limits.maxSubjectLength());
        assertEquals(200, with("filter.maxSubjectLength", "200").filter().limits().maxSubjectLength());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> with("filter.maxPatternProgram", "0"));
        assertTrue(e.getMessage().contains("filter.maxPatternProgram"), e.getMessage());
    }

    @Test
    void noConfigRecordPrintsASecret() {
        Map<String, String> s = minimal();
        s.put("admin.bearerToken", "bearer-secret-0123456789");
        s.put("kafka.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"u\" password=\"jaas-secret\";");
        s.put("kafka.ssl.keystore.password", "keystore-secret");
        s.put("smtp.host", "smtp.example.com");
        s.put("smtp.from", "alerts@example.com");
        s.put("smtp.password", "smtp-secret");
        AlertServiceConfig c = AlertServiceConfig.from(s, Map.of());
        for (Object printed : new Object[] {c, c.admin(), c.subscriptions(), c.destinations(), c.ledger(),
                c.filter(), c.destinations().smtp()}) {
            for (String secret : new String[] {"bearer-secret", "jaas-secret", "keystore-secret", "smtp-secret"}) {
                assertTrue(!printed.toString().contains(secret), secret + " in " + printed);
            }
        }
    }
}
