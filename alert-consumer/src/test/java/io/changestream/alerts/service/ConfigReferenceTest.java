package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.RuntimeConfig;
import io.changestream.testkit.ReadmeSettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Settings" table must match the keys {@link AlertServiceConfig#SETTINGS} declares and their defaults,
 * plus the runtime defaults the service sets itself: every key is a row, every row is a key, each default cell starts
 * with the code's default (a note may follow in parentheses). Same contract as cdc-connector's and log-tailer's.
 */
class ConfigReferenceTest {

    private static final Path README = Path.of("README.md");
    private static final String NONE = ReadmeSettingsTable.NONE;
    private static final String KAFKA_PASS_THROUGH = "kafka.<client property>";
    private static final String RUNTIME_PASS_THROUGH = RuntimeConfig.PREFIX + "<setting>";

    @Test
    void readmeSettingsTableMatchesTheKeysTheCodeReads() throws Exception {
        ReadmeSettingsTable.assertMatches(Files.readString(README), declared(),
                ReadmeSettingsTable.Cells.CODE_KEYS_AND_DEFAULTS,
                "alert-consumer/README.md's Settings table has drifted from AlertServiceConfig");
    }

    @Test
    void readmeStatesTheEnvironmentFormAndItsExamplesWork() throws Exception {
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        String prefix = AlertServiceConfig.ENV_PREFIX;
        assertTrue(readme.contains("`" + prefix + "<KEY>` (upper case, `.` → `_`)"),
                "README must state the env form: ALERTS_<KEY> (upper case, . → _)");
        List<String> examples = ReadmeSettingsTable.envExamples(readme, prefix);
        for (String example : examples) {
            String key = AlertServiceConfig.keyOf(example.substring(prefix.length()), Map.of());
            assertTrue(declared().containsKey(key), "README's example " + example + " names no setting (" + key
                    + ")");
        }
        assertFalse(examples.isEmpty(), "README must give an example " + prefix + "<KEY>");
        AlertServiceConfig config = AlertServiceConfig.from(
                Map.of("kafka.bootstrap.servers", "localhost:9092", "admin.bearerToken", "0123456789abcdef"),
                Map.of(prefix + "HTTP_PORT", "9191", prefix + "ADMIN_BEARER_TOKEN", "fedcba9876543210"));
        assertEquals(9191, config.httpPort(), "env override " + prefix + "HTTP_PORT");
        assertTrue(config.toString().contains("admin"), config.toString());
        assertFalse(config.toString().contains("fedcba9876543210"), "the token never shows when printed");
    }

    /** Key → default as the code declares it ({@code —} for none). */
    private static Map<String, String> declared() {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("kafka.bootstrap.servers", NONE);
        out.put(KAFKA_PASS_THROUGH, NONE);
        AlertServiceConfig.SETTINGS.forEach(s -> out.put(s.key(), s.defaultValue() == null ? NONE : s.defaultValue()));
        out.put(RUNTIME_PASS_THROUGH, NONE);
        out.put(RuntimeConfig.PREFIX + "lanes", Integer.toString(AlertServiceConfig.DEFAULT_LANES));
        out.put(RuntimeConfig.PREFIX + "maxAttempts", Integer.toString(AlertServiceConfig.DEFAULT_MAX_ATTEMPTS));
        out.put(RuntimeConfig.PREFIX + "processingTimeout",
                AlertServiceConfig.DEFAULT_PROCESSING_TIMEOUT.toString().toUpperCase(Locale.ROOT));
        out.put(RuntimeConfig.PREFIX + "kafka.session.timeout.ms",
                Integer.toString(RuntimeConfig.DEFAULT_SESSION_TIMEOUT_MS));
        out.put(RuntimeConfig.PREFIX + "kafka.heartbeat.interval.ms",
                Integer.toString(RuntimeConfig.DEFAULT_HEARTBEAT_INTERVAL_MS));
        out.put(RuntimeConfig.PREFIX + "groupInstanceId", RuntimeConfig.GROUP_INSTANCE_ID.defaultOrFail());
        return out;
    }
}
