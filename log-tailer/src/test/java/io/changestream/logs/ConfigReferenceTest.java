package io.changestream.logs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.settings.SettingsReference;
import io.changestream.testkit.ReadmeSettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Settings" table must match the declared settings ({@link LogTailerConfig#SETTINGS}) and their defaults
 * (issue 7, decision 2701): every declared key and the {@code kafka.<client property>} pass-through is a row, every row
 * is one of them, each default cell starts with the declared default (a note may follow in parentheses).
 */
class ConfigReferenceTest {

    private static final Path README = Path.of("README.md");

    @Test
    void readmeSettingsTableMatchesTheDeclaredSettings() throws Exception {
        ReadmeSettingsTable.assertMatches(Files.readString(README), declared(), ReadmeSettingsTable.Cells.CODE_KEYS,
                "log-tailer/README.md's Settings table has drifted from LogTailerConfig");
    }

    @Test
    void readmeStatesTheEnvironmentForm() throws Exception {
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        String prefix = LogTailerConfig.ENV_PREFIX;
        assertTrue(readme.contains("`" + prefix + "<KEY>` (upper case, `.` → `_`)"),
                "README must state the env form: LOG_TAILER_<KEY> (upper case, . → _)");
        Map<String, String> expected = declared();
        List<String> examples = ReadmeSettingsTable.envExamples(readme, prefix);
        for (String example : examples) {
            String name = example.substring(prefix.length());
            boolean known = name.startsWith("KAFKA_") || expected.keySet().stream()
                    .anyMatch(k -> k.toUpperCase(Locale.ROOT).replace('.', '_').equals(name));
            assertTrue(known, "README's example " + example + " names no setting");
        }
        assertFalse(examples.isEmpty(), "README must give an example " + prefix + "<KEY>");
        LogTailerConfig config = LogTailerConfig.from(minimal(),
                Map.of(prefix + "HTTP_PORT", "9191", prefix + "STREAM_MAXACTIVERUNS", "400"));
        assertEquals(9191, config.httpPort(), "env override " + prefix + "HTTP_PORT");
        assertEquals(400, config.stream().maxActiveRuns(), "env override " + prefix + "STREAM_MAXACTIVERUNS");
    }

    private static Map<String, String> declared() {
        Map<String, String> declared = new LinkedHashMap<>(SettingsReference.defaults(LogTailerConfig.SETTINGS));
        declared.put(SettingsReference.passThrough(LogTailerConfig.KAFKA_CLIENT_PREFIX), SettingsReference.NONE);
        return declared;
    }

    private static Properties minimal() {
        Properties p = new Properties();
        p.setProperty("auth.tokens", "t");
        p.setProperty("storage.root", "logs");
        return p;
    }
}
