package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** ops/README.md's option reference is generated from the commands' declarations and must not drift. */
class CliReferenceTest {

    @Test
    void readmeHoldsTheGeneratedOptionReference() throws Exception {
        String expected = CliReference.markdown();
        String readme = Files.readString(Path.of("README.md"));
        if (!readme.contains(expected)) {
            Path generated = Path.of("target", "cli-reference.md");
            Files.createDirectories(generated.getParent());
            Files.writeString(generated, expected);
            assertTrue(false, "ops/README.md's option reference is out of date: replace it with " + generated
                    .toAbsolutePath());
        }
    }

    @Test
    void optionalFlagsHaveNoRequiredDefaultAndAlternativesSayOneOf() {
        String table = CliReference.markdown();
        for (String flag : new String[] {"--dry-run", "--execute", "--all-topics", "--to-earliest", "--export"}) {
            table.lines().filter(l -> l.startsWith("| `offsets reset` | `" + flag + "`")).forEach(l ->
                    assertTrue(!l.contains("`required`"), l));
        }
        assertTrue(table.contains("| `offsets reset` | `--dry-run` |  |"), table);
        assertTrue(table.contains("| `offsets reset` | `--to-earliest` | `one of these 8` |"), table);
        assertTrue(table.contains("| `offsets reset` | `--group` | `one of --group, --all-groups` |"), table);
        assertTrue(table.contains("| `offsets describe` | `--group` | `required` |"), table);
        assertTrue(table.contains("| `dlq replay` | `--execute` |  |"), table);
    }
}
