package io.changestream.ops.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.ops.cli.Launcher;
import io.changestream.ops.service.StopSignal;
import io.changestream.testkit.FreePorts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code changestream dev --smoke} on a clean data directory, run in-process: a real child-process broker, a real
 * PostgreSQL, the services and the demo writer; the smoke checks must pass and everything must stop.
 */
class DevSmokeIT {

    @Test
    void smokeRunPassesOnACleanDataDirectory(@TempDir Path dir) throws Exception {
        int[] ports = FreePorts.withPairFirst(6); // the broker's controller takes the Kafka port + 1
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Launcher launcher = new Launcher(Map.of(), Clock.systemUTC(), StopSignal::manual);
        int code = launcher.run(new PrintWriter(out), new PrintWriter(err), "dev", "--smoke",
                "--data-dir", dir.resolve("state").toString(),
                "--kafka-port", Integer.toString(ports[0]),
                "--postgres-port", Integer.toString(ports[1]),
                "--cdc-port", Integer.toString(ports[2]),
                "--logs-port", Integer.toString(ports[3]),
                "--alerts-port", Integer.toString(ports[4]),
                "--webhook-port", Integer.toString(ports[5]),
                "--event-interval", "PT0.3S", "--lines-per-run", "5", "--smoke-timeout", "PT90S");
        assertEquals(0, code, out + "\n" + err);
        assertTrue(out.toString().contains("smoke: OK"), out.toString());
        assertTrue(out.toString().contains("Bearer dev-token"), "prints the token and curl line: " + out);
        assertTrue(out.toString().contains("/ui/logs.html"), "prints the viewer URL: " + out);
        // the viewer URL names the demo run being written (its log exists) and carries the token
        Matcher viewer = java.util.regex.Pattern.compile(
                "/ui/logs\\.html\\?fqn=([^&\\s]+)&runId=(run-\\d+)#token=dev-token").matcher(out.toString());
        assertTrue(viewer.find(), "prints a working viewer URL for the current demo run: " + out);
        assertTrue(Files.isDirectory(dir.resolve("state").resolve("logs").resolve(viewer.group(1))
                .resolve(viewer.group(2))), "the run of the printed URL exists: " + viewer.group());

        // every service's scrape (kept by the smoke run) passes promtool, and the shipped rules and dashboard only
        // use metric names the services really export
        Path smoke = dir.resolve("state").resolve("smoke");
        StringBuilder scraped = new StringBuilder();
        for (String service : List.of("cdc-connector", "alert-consumer", "log-tailer")) {
            Path file = smoke.resolve(service + ".prom");
            assertTrue(Files.isRegularFile(file), "smoke kept " + file);
            promtoolCheckMetrics(file);
            scraped.append(Files.readString(file));
        }
        Set<String> exported = new TreeSet<>();
        Matcher m = METRIC.matcher(scraped);
        while (m.find()) {
            exported.add(m.group());
        }
        Path root = Path.of("..").toAbsolutePath().normalize();
        for (Path config : List.of(root.resolve("ops/prometheus/rules.yml"),
                root.resolve("ops/grafana/dashboards/changestream.json"))) {
            String text = Files.readAllLines(config).stream().filter(l -> !l.strip().startsWith("#"))
                    .collect(java.util.stream.Collectors.joining("\n"));
            Matcher used = METRIC.matcher(text);
            Set<String> missing = new TreeSet<>();
            while (used.find()) {
                if (!exported.contains(used.group()) && !REGISTERED_ON_FIRST_USE.contains(used.group())) {
                    missing.add(used.group());
                }
            }
            assertTrue(missing.isEmpty(), config + " uses metrics no service exports: " + missing);
        }
    }

    /** Metric names of changestream's services. */
    private static final Pattern METRIC = Pattern.compile("\\b(cdc|changestream|logtailer)_[a-z_]*[a-z]");

    /**
     * Meters the services register only when the first such event happens (a dead letter, an engine error, a
     * final failure, a refusal…), so a healthy smoke run does not export them. Each is in its service's catalogue.
     */
    private static final Set<String> REGISTERED_ON_FIRST_USE = Set.of(
            "cdc_errors_total",                       // CdcMeter.ERRORS, tagged by kind on the first error
            "changestream_alert_dead_letters_total",  // DeadLetterWriter, tagged by source on the first dead letter
            "changestream_runtime_final_failures_total",  // RuntimeMeter.FINAL_FAILURES, by kind on the first one
            "logtailer_refusals_total");              // registered per reason up front; listed for older builds

    private static void promtoolCheckMetrics(Path file) throws Exception {
        Process p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(file.toFile())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool finished");
        assertEquals(0, p.exitValue(), "promtool check metrics " + file + ":\n" + output);
    }
}
