package io.changestream.alerts.service;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/** Alert service instances as child JVMs (a real {@code kill -9}): started from a settings file, ready by log line. */
final class ChildInstances {

    private static final Pattern READY = Pattern.compile("READY http\\.port=(\\d+)");

    private ChildInstances() {
    }

    /** Starts {@link AlertServiceMain} in a child JVM with these settings; its output goes to {@code worker-N.log}. */
    static Process start(Path dir, Map<String, String> settings, int incarnation) throws IOException {
        Path config = dir.resolve("worker-" + incarnation + ".properties");
        Properties props = new Properties();
        props.putAll(settings);
        try (Writer w = Files.newBufferedWriter(config)) {
            props.store(w, "alert service instance " + incarnation);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), AlertServiceMain.class.getName(), config.toString());
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("worker-" + incarnation + ".log").toFile());
        return pb.start();
    }

    /** Waits for an instance's READY line and returns its HTTP port. */
    static int ready(Path dir, int incarnation) {
        Path log = dir.resolve("worker-" + incarnation + ".log");
        int[] port = new int[1];
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            if (!Files.exists(log)) {
                return false;
            }
            Matcher m = READY.matcher(Files.readString(log));
            if (m.find()) {
                port[0] = Integer.parseInt(m.group(1));
                return true;
            }
            return false;
        });
        return port[0];
    }
}
