package io.changestream.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.ReadmeSettingsTable;
import io.changestream.cdc.transform.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's settings table must match the keys {@link CdcConfig#fromMap} reads and their defaults (issue 7): every
 * key read is a row, every row is a key read, each default cell starts with the code's default (a note may follow
 * in parentheses). Defaults that depend on {@code database.kind} show as {@code <pg> on postgres, <maria> on mariadb}.
 */
class ConfigReferenceTest {

    private static final Path README = Path.of("README.md");
    private static final String NONE = ReadmeSettingsTable.NONE;

    @Test
    void readmeSettingsTableMatchesTheKeysTheCodeReads() throws Exception {
        ReadmeSettingsTable.assertMatches(Files.readString(README), declaredDefaults(), ReadmeSettingsTable.Cells.PLAIN,
                "cdc-connector/README.md's settings table has drifted from CdcConfig");
    }

    @Test
    void readmeStatesTheEnvironmentForm() throws Exception {
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        assertTrue(readme.contains("`" + CdcConfig.ENV_PREFIX + "` + the key upper-cased with dots as underscores"),
                "README must state the env form: CS_CDC_ + key upper-cased, dots as underscores");
        Map<String, String> expected = declaredDefaults();
        List<String> examples = ReadmeSettingsTable.envExamples(readme, CdcConfig.ENV_PREFIX);
        for (String example : examples) {
            String key = example.substring(CdcConfig.ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
            boolean known = expected.containsKey(key) || expected.keySet().stream()
                    .anyMatch(k -> k.endsWith(Settings.PASS_THROUGH)
                            && key.startsWith(k.substring(0, k.length() - Settings.PASS_THROUGH.length())));
            assertTrue(known, "README's example " + example + " names no setting (" + key + ")");
        }
        assertFalse(examples.isEmpty(), "README must give an example " + CdcConfig.ENV_PREFIX + "<KEY>");
        Path file = Files.createTempFile("cdc", ".properties");
        try {
            Files.writeString(file, "database.name=db\ndatabase.user=u\nkafka.bootstrap.servers=k:9092\n");
            CdcConfig config = CdcConfig.load(file, Map.of(CdcConfig.ENV_PREFIX + "HTTP_PORT", "9191"));
            assertEquals(9191, config.http().port(), "env override " + CdcConfig.ENV_PREFIX + "HTTP_PORT");
        } finally {
            Files.delete(file);
        }
    }

    /** Key → rendered default, from reading a minimal config once per database kind. */
    private static Map<String, String> declaredDefaults() {
        Map<String, String> postgres = declared("postgres");
        Map<String, String> mariadb = declared("mariadb");
        assertEquals(postgres.keySet(), mariadb.keySet(), "both database kinds read the same keys");
        Map<String, String> out = new LinkedHashMap<>();
        postgres.forEach((key, value) -> out.put(key, value.equals(mariadb.get(key)) ? value
                : value + " on postgres, " + mariadb.get(key) + " on mariadb"));
        return out;
    }

    private static Map<String, String> declared(String kind) {
        Settings s = new Settings(Map.of("database.kind", kind, "database.name", "db", "database.user", "u",
                "kafka.bootstrap.servers", "localhost:9092"));
        CdcConfig.from(s);
        Map<String, String> out = new LinkedHashMap<>();
        s.declared().forEach((key, value) -> out.put(key, value == null || value.isEmpty() ? NONE : value));
        return out;
    }
}
