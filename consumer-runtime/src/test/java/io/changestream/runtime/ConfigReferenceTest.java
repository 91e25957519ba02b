package io.changestream.runtime;

import io.changestream.settings.SettingsReference;
import io.changestream.testkit.ReadmeSettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * README.md's "Settings" table must match {@link RuntimeConfig#SETTINGS} and the failure-detection defaults the
 * runtime fills in: every key is a row, every row is a key, each default cell starts with the code's default. Same
 * contract as the services' tables.
 */
class ConfigReferenceTest {

    @Test
    void readmeSettingsTableMatchesTheDeclaredSettings() throws Exception {
        Map<String, String> declared = new LinkedHashMap<>(SettingsReference.defaults(RuntimeConfig.SETTINGS));
        declared.put("runtime.kafka.session.timeout.ms", Integer.toString(RuntimeConfig.DEFAULT_SESSION_TIMEOUT_MS));
        declared.put("runtime.kafka.heartbeat.interval.ms",
                Integer.toString(RuntimeConfig.DEFAULT_HEARTBEAT_INTERVAL_MS));
        ReadmeSettingsTable.assertMatches(Files.readString(Path.of("README.md")), declared,
                ReadmeSettingsTable.Cells.CODE_KEYS_AND_DEFAULTS,
                "consumer-runtime/README.md's Settings table has drifted from RuntimeConfig.SETTINGS");
    }
}
