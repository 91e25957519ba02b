package io.changestream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JVM that used the shared in-JVM broker exits as it meant to: a test fork whose tests all passed must not end
 * with a non-zero status because the broker was torn down badly at exit (docs/decisions/1701). The child always runs
 * the embedded broker, whatever {@value Brokers#SETTING} this JVM was given.
 */
class SharedBrokerExitIT {

    private static final Pattern DATA_DIR = Pattern.compile("Formatting metadata directory (\\S+)");

    @Test
    void aJvmThatUsedTheSharedBrokerExitsZeroAndTheBrokerStopsBeforeItsDirectoryIsDeleted() throws Exception {
        Path log = Files.createDirectories(Path.of("target")).resolve("shared-broker-exit.log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-D" + Brokers.SETTING + "=embedded", "-cp", System.getProperty("java.class.path"),
                SharedBrokerExitMain.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = child.waitFor(90, TimeUnit.SECONDS);
        if (!exited) {
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);

        assertTrue(exited, "the JVM exits within 90 s; output in " + log);
        assertTrue(output.contains("tests done, exiting"), "the child ran to its exit; output in " + log);
        assertEquals(0, child.exitValue(), "exit status of a JVM that called System.exit(0); output in " + log);
        // the broker's storage must be there until it has stopped: no checkpoint or segment write failed
        for (String failure : List.of("KafkaStorageException", "LogDirFailureChannel", "have failed")) {
            assertFalse(output.contains(failure), "the broker lost its log directory while running ("
                    + failure + "); output in " + log);
        }
        Matcher dir = DATA_DIR.matcher(output);
        assertTrue(dir.find(), "the broker formatted its directory; output in " + log);
        Path base = Path.of(dir.group(1)).getParent();
        assertFalse(Files.exists(base), "the broker's stop deletes its directory " + base);
    }
}
