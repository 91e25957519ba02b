package io.changestream.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.transform.TransformSettings;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.settings.SettingsReference;
import io.changestream.testkit.ReadmeSettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's settings table must match the settings {@link CdcConfig#SETTINGS} declares and their defaults (issue 7,
 * decision 2701): every declared key is a row, every row is a declared key or the {@code kafka.*} pass-through, each
 * default cell starts with the declared default (a note may follow in parentheses). Defaults that depend on
 * {@code database.kind} show as {@code <pg> on postgres, <maria> on mariadb}, and those texts must be what the code
 * derives.
 */
class ConfigReferenceTest {

    private static final Path README = Path.of("README.md");
    private static final String PREFIX = CdcConfig.ENV_PREFIX;

    @Test
    void readmeSettingsTableMatchesTheDeclaredSettings() throws Exception {
        ReadmeSettingsTable.assertMatches(Files.readString(README), reference(), ReadmeSettingsTable.Cells.PLAIN,
                "cdc-connector/README.md's settings table has drifted from CdcConfig.SETTINGS");
    }

    @Test
    void theShownDerivedDefaultsAreTheOnesTheCodeDerives() {
        CdcConfig postgres = CdcConfig.fromMap(minimal("postgres"));
        CdcConfig mariadb = CdcConfig.fromMap(minimal("mariadb"));
        assertEquals(CdcSettings.byKind(postgres.database().port(), mariadb.database().port()),
                CdcConfig.Database.PORT.shownDefault());
        assertEquals(CdcSettings.byKind(postgres.standby().leaseEnabled(), mariadb.standby().leaseEnabled()),
                CdcConfig.Standby.LEASE_ENABLED.shownDefault());
        assertEquals(TransformSettings.DLQ_RAW_MAX_BYTES.shownDefault(),
                Integer.toString(postgres.transform().dlqRawMaxBytes()));
        Map<String, String> small = minimal("postgres");
        small.put(TransformSettings.MAX_ROW_BYTES.key(), "2048");
        assertEquals(2048, CdcConfig.fromMap(small).transform().dlqRawMaxBytes(), "max.row.bytes if smaller");
    }

    @Test
    void readmeStatesTheEnvironmentForm() throws Exception {
        String readme = Files.readString(README).replaceAll("\\s+", " ");
        assertTrue(readme.contains("`" + PREFIX + "` + the key upper-cased with dots as underscores"),
                "README must state the env form: CS_CDC_ + key upper-cased, dots as underscores");
        for (Setting<?> setting : CdcConfig.SETTINGS) {
            assertEquals(PREFIX + setting.key().toUpperCase(Locale.ROOT).replace('.', '_'),
                    SettingsReader.envName(PREFIX, setting.key()), "README's rule names the variable of " + setting);
        }
        Map<String, String> reference = reference();
        List<String> examples = ReadmeSettingsTable.envExamples(readme, PREFIX);
        for (String example : examples) {
            String key = SettingsReader.keyOf(example.substring(PREFIX.length()), CdcConfig.SETTINGS, List.of());
            assertTrue(reference.containsKey(key) || key.startsWith(CdcConfig.Kafka.PREFIX),
                    "README's example " + example + " names no setting (" + key + ")");
        }
        assertFalse(examples.isEmpty(), "README must give an example " + PREFIX + "<KEY>");
        assertTrue(readme.contains("`-D" + SettingsReader.propertyPrefix(PREFIX) + "<key>`"),
                "README must state the system property form");
        Path file = Files.createTempFile("cdc", ".properties");
        String property = SettingsReader.propertyPrefix(PREFIX) + CdcConfig.Http.HOST.key();
        try {
            Files.writeString(file, "database.name=db\ndatabase.user=u\nkafka.bootstrap.servers=k:9092\n");
            System.setProperty(property, "127.0.0.2");
            CdcConfig config = CdcConfig.load(file, Map.of(PREFIX + "HTTP_PORT", "9191"));
            assertEquals(9191, config.http().port(), "env override " + PREFIX + "HTTP_PORT");
            assertEquals("127.0.0.2", config.http().host(), "system property override " + property);
        } finally {
            System.clearProperty(property);
            Files.delete(file);
        }
    }

    /** Key → shown default of every declared setting, and the pass-through row. */
    private static Map<String, String> reference() {
        Map<String, String> out = new LinkedHashMap<>(SettingsReference.defaults(CdcConfig.SETTINGS));
        out.put(SettingsReference.passThrough(CdcConfig.Kafka.PREFIX), SettingsReference.NONE);
        return out;
    }

    private static Map<String, String> minimal(String kind) {
        return new LinkedHashMap<>(Map.of(CdcConfig.Database.KIND.key(), kind, "database.name", "db",
                "database.user", "u", "kafka.bootstrap.servers", "localhost:9092"));
    }
}
