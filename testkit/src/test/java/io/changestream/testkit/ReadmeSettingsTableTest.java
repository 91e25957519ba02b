package io.changestream.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The drift check every module's ConfigReferenceTest runs: it passes on a true table and fails on a drifted one. */
class ReadmeSettingsTableTest {

    private static final String README = """
            # m

            Set `M_<KEY>` (upper case), e.g. `M_HTTP_PORT=9191` or M_A_B.

            ## Settings
            | key | default | meaning |
            |---|---|---|
            | `http.port` | `8080` | the port |
            | `a.b` | — | required |
            | `x / y` | 1 / 2 (per kind) | two keys |

            ## Next
            | `not.a.setting` | 3 | outside the section |
            """;

    private static Map<String, String> declared(String httpPort) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("http.port", httpPort);
        m.put("a.b", ReadmeSettingsTable.NONE);
        m.put("x", "1");
        m.put("y", "2");
        return m;
    }

    @Test
    void aTableThatMatchesTheCodePasses() {
        assertDoesNotThrow(() -> ReadmeSettingsTable.assertMatches(README, declared("8080"),
                ReadmeSettingsTable.Cells.CODE_KEYS_AND_DEFAULTS, "m/README.md has drifted"));
    }

    @Test
    void aDriftedDefaultAMissingKeyAndAnUnreadRowFailWithRowsToPaste() {
        Map<String, String> declared = declared("9090");
        declared.put("new.key", "5");
        declared.remove("a.b");
        AssertionError e = assertThrows(AssertionError.class, () -> ReadmeSettingsTable.assertMatches(README,
                declared, ReadmeSettingsTable.Cells.CODE_KEYS_AND_DEFAULTS, "m/README.md has drifted"));
        String message = e.getMessage();
        assertTrue(message.startsWith("m/README.md has drifted: "), message);
        assertTrue(message.contains("http.port: README shows default '8080', the code uses '9090'"), message);
        assertTrue(message.contains("missing: new.key"), message);
        assertTrue(message.contains("not read: a.b"), message);
        assertTrue(message.contains("| `http.port` | `9090` | the port |"), message);
        assertTrue(message.contains("| `new.key` | `5` |  |"), message);
    }

    @Test
    void rowsToPasteAreWrittenAsTheModuleWritesItsTable() {
        Map<String, String> declared = Map.of("only", ReadmeSettingsTable.NONE);
        String plain = assertThrows(AssertionError.class, () -> ReadmeSettingsTable.assertMatches(README, declared,
                ReadmeSettingsTable.Cells.PLAIN, "d")).getMessage();
        assertTrue(plain.contains("| only | — |  |"), plain);
        String codeKeys = assertThrows(AssertionError.class, () -> ReadmeSettingsTable.assertMatches(README,
                declared, ReadmeSettingsTable.Cells.CODE_KEYS, "d")).getMessage();
        assertTrue(codeKeys.contains("| `only` | — |  |"), codeKeys);
    }

    @Test
    void envExamplesAreTheNamesWithThePrefixInOrder() {
        assertEquals(List.of("M_HTTP_PORT", "M_A_B"), ReadmeSettingsTable.envExamples(README, "M_"));
    }
}
