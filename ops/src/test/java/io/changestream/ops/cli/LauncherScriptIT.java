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

    /**
     * Issue 23: every service file of the fat jar is the union of the files of the jars it was made from. For each
     * jar of this module's classpath that has a service file the fat jar has too, every provider it lists whose class
     * is in the fat jar must be listed in the fat jar's file (a missing merge keeps one jar's file: ServiceLoader
     * would not find the others' connectors, converters, drivers or lineage transports).
     */
    @Test
    void everyServiceFileOfTheFatJarListsTheProvidersOfEveryJarItWasMadeFrom() throws Exception {
        int checked = 0;
        java.util.Set<String> merged = new java.util.TreeSet<>();
        try (ZipFile fat = new ZipFile(ROOT.resolve("ops/target/changestream.jar").toFile())) {
            for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
                if (!entry.endsWith(".jar")) {
                    continue;
                }
                try (ZipFile jar = new ZipFile(entry)) {
                    for (var e : java.util.Collections.list(jar.entries())) {
                        String name = e.getName();
                        if (!name.startsWith("META-INF/services/") || name.endsWith("/") || fat.getEntry(name) == null) {
                            continue;
                        }
                        List<String> fatProviders = providers(fat, name);
                        for (String provider : providers(jar, name)) {
                            if (fat.getEntry(provider.replace('.', '/') + ".class") == null) {
                                continue; // a test-only jar's provider: not shaded in
                            }
                            assertTrue(fatProviders.contains(provider), name + " of changestream.jar lacks "
                                    + provider + " (from " + entry + "): " + fatProviders);
                            checked++;
                            if (fatProviders.size() > providers(jar, name).size()) {
                                merged.add(name);
                            }
                        }
                    }
                }
            }
        }
        assertTrue(checked > 100, "providers checked: " + checked);
        assertTrue(merged.contains("META-INF/services/org.apache.kafka.connect.transforms.Transformation")
                && merged.contains("META-INF/services/java.sql.Driver"), "files merged from several jars: " + merged);
    }

    private static List<String> providers(ZipFile jar, String name) throws java.io.IOException {
        String text = new String(jar.getInputStream(jar.getEntry(name)).readAllBytes(), StandardCharsets.UTF_8);
        return text.lines().map(l -> l.replaceAll("#.*", "").trim()).filter(l -> !l.isEmpty()).toList();
    }
}
