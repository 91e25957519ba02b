package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/** The {@code ops/changestream} script on the fat jar this build just packaged (failsafe runs after package). */
class LauncherScriptIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    record Run(int code, String out, String err) {
    }

    private static Run script(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", ROOT.resolve("ops/changestream").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("CHANGESTREAM_SKIP_BUILD", "1");
        Path err = java.nio.file.Files.createTempFile("changestream", ".err");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
        String errText = java.nio.file.Files.readString(err);
        java.nio.file.Files.delete(err);
        return new Run(p.exitValue(), out, errText);
    }

    @Test
    void scriptRunsTheFatJarWithExitCodes() throws Exception {
        Run version = script("--version");
        assertEquals(0, version.code(), version.err());
        assertTrue(version.out().startsWith("changestream "), version.out());
        Run usage = script("offsets", "reset", "--group", "g");
        assertEquals(2, usage.code());
        assertEquals(1, usage.err().lines().count(), "one line on stderr: " + usage.err());
        Run help = script("dev", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("--smoke"), help.out());
    }

    @Test
    void fatJarMergesServiceFiles() throws Exception {
        try (ZipFile jar = new ZipFile(ROOT.resolve("ops/target/changestream.jar").toFile())) {
            String drivers = new String(jar.getInputStream(jar.getEntry("META-INF/services/java.sql.Driver"))
                    .readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(drivers.contains("org.postgresql.Driver") && drivers.contains("org.mariadb.jdbc.Driver"),
                    "ServiceLoader files of every jar are merged: " + drivers);
            assertTrue(jar.getEntry("logback-test.xml") == null, "no test logging config in the launcher");
        }
    }
}
