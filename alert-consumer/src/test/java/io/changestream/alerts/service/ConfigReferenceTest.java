package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.settings.SettingsReader;
import io.changestream.testkit.ReadmeSettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Settings" table must match {@link AlertServiceConfig#reference()}, derived from the settings the code
 * declares (the runtime's included, with the defaults the service sets itself): every key is a row, every row is a
 * key, each default cell starts with the code's default (a note may follow in parentheses). Same contract as
 * cdc-connector's and log-tailer's.
 */
class ConfigReferenceTest {

    private static final Path README = Path.of("README.md");

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
            String key = SettingsReader.keyOf(example.substring(prefix.length()), AlertServiceConfig.SETTINGS,
                    List.of());
            assertTrue(AlertServiceConfig.reference().containsKey(key), "README's example " + example + " names no setting (" + key + ")");
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
        return AlertServiceConfig.reference();
    }
}
