package io.changestream.ops.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changestream.cdc.transform.ChangeEventTransform;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * The shipped configs validate with the real tools: {@code promtool check config|rules} and Debian's docker-compose
 * 1.29 ({@code config -q}). A missing tool fails the test (ops/test installs them); nothing is skipped.
 */
class ConfigValidationIT {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final long TOOL_TIMEOUT_SECONDS = 60;

    /** Runs a tool in the repository root; returns its output; fails loudly when it is missing or fails. */
    static String tool(String... command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail("'" + command[0] + "' is not installed: run ops/test (it installs the prometheus and docker-compose "
                    + "Debian packages) — " + e.getMessage());
            throw e;
        }
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(TOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in " + TOOL_TIMEOUT_SECONDS + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed:\n" + text);
        return text;
    }

    @Test
    void prometheusConfigIsValidAndLoadsTheRules() throws Exception {
        String out = tool("promtool", "check", "config", "ops/prometheus/prometheus.yml");
        assertTrue(out.contains("1 rule files found"), out);
        String prometheus = Files.readString(ROOT.resolve("ops/prometheus/prometheus.yml"));
        for (String target : List.of("cdc-connector:8090", "alert-consumer-1:8591", "alert-consumer-2:8591",
                "log-tailer:8590")) {
            assertTrue(prometheus.contains(target), "prometheus.yml scrapes " + target);
        }
    }

    @Test
    void alertingRulesAreValid() throws Exception {
        String out = tool("promtool", "check", "rules", "ops/prometheus/rules.yml");
        assertTrue(out.contains("SUCCESS"), out);
        String rules = Files.readString(ROOT.resolve("ops/prometheus/rules.yml"));
        for (String alert : List.of("ConsumerLagGrowing", "AlertsDeadLettered", "CdcCaptureLagHigh", "CdcDisconnected",
                "SseConnectionsNearCap", "AlertDestinationCircuitOpen", "AlertDestinationSuspended",
                "AlertDlqDepthGrowing", "AlertWindowEvictions")) {
            assertTrue(rules.contains("alert: " + alert), "rules.yml has " + alert);
        }
    }

    @Test
    void alertingRulesPassTheirUnitTests() throws Exception {
        // rules.test.yml: the DLQ depth growing (and not for a steady or shrinking DLQ), window evictions by window
        String out = tool("promtool", "test", "rules", "ops/prometheus/rules.test.yml");
        assertTrue(out.contains("SUCCESS"), out);
        String tests = Files.readString(ROOT.resolve("ops/prometheus/rules.test.yml"));
        for (String alert : List.of("AlertDlqDepthGrowing", "AlertWindowEvictions")) {
            assertTrue(tests.contains("alertname: " + alert), "rules.test.yml tests " + alert);
        }
    }

    @Test
    void composeFileValidatesWithDockerCompose1() throws Exception {
        tool("docker-compose", "-f", "docker-compose.yml", "config", "-q");
        String services = tool("docker-compose", "-f", "docker-compose.yml", "config", "--services");
        for (String service : List.of("kafka", "postgres", "prometheus", "grafana", "cdc-connector",
                "alert-consumer-1", "alert-consumer-2", "log-tailer", "webhook-echo")) {
            assertTrue(services.lines().anyMatch(service::equals), "compose has service " + service + ":\n" + services);
        }
        assertTrue(Files.isRegularFile(ROOT.resolve("cdc-connector/src/main/resources/io/changestream/cdc/sql/"
                + "postgres.sql")), "the init SQL the compose file mounts exists");
    }

    @Test
    void composeDemoProfileRunsTheLaunchersDemoCommandWithArgumentsItAccepts() throws Exception {
        String demo = tool("docker-compose", "-f", "docker-compose.yml", "--profile", "demo", "config");
        JsonNode service = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(demo)
                .path("services").path("demo");
        assertEquals("demo", service.path("profiles").path(0).asText(), "the demo runs only with --profile demo");
        List<String> args = new ArrayList<>();
        service.path("command").forEach(a -> args.add(a.asText()));
        assertEquals("demo", args.get(0), args.toString());
        // the launcher parses exactly these arguments (a renamed option would fail here, not in a user's compose up)
        new picocli.CommandLine(new io.changestream.ops.cli.Launcher(Map.of(), java.time.Clock.systemUTC()))
                .parseArgs(args.toArray(String[]::new));
        assertTrue(args.contains("http://alert-consumer-1:8591"), args.toString());
        assertEquals("dev-token-changestream", service.path("environment").path("CHANGESTREAM_DEMO_TOKEN").asText());
        String logsVolume = service.path("volumes").toString();
        String tailerVolume = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(demo)
                .path("services").path("log-tailer").path("volumes").toString();
        assertTrue(logsVolume.contains("run-logs") && tailerVolume.contains("run-logs"),
                "the demo writes run logs where the log-tailer reads them: " + logsVolume + " / " + tailerVolume);
    }

    @Test
    void composeServiceConfigsLoadWithTheirEnvironment() {
        // the environment docker-compose.yml gives each service
        Map<String, Map<String, String>> services = Map.of(
                "cdc", Map.of("CS_CDC_DATABASE_PASSWORD", "postgres"),
                "alerts", Map.of("ALERTS_ADMIN_BEARER_TOKEN", "dev-token-changestream"),
                "logs", Map.of("LOG_TAILER_AUTH_TOKENS", "dev-token-changestream"));
        Map<String, String> files = Map.of("cdc", "cdc.properties", "alerts", "alert-consumer.properties",
                "logs", "log-tailer.properties");
        services.forEach((command, env) -> {
            java.io.StringWriter out = new java.io.StringWriter();
            java.io.StringWriter err = new java.io.StringWriter();
            int code = new io.changestream.ops.cli.Launcher(env, java.time.Clock.systemUTC()).run(
                    new java.io.PrintWriter(out), new java.io.PrintWriter(err), command, "--config",
                    ROOT.resolve("ops/compose").resolve(files.get(command)).toString(), "--print-config");
            assertEquals(0, code, command + ": " + err);
            assertTrue(!out.toString().contains("dev-token-changestream"), "secrets masked: " + out);
        });
    }

    @Test
    void grafanaDashboardIsProvisionedJson() throws Exception {
        JsonNode dash = new ObjectMapper().readTree(ROOT.resolve("ops/grafana/dashboards/changestream.json").toFile());
        assertEquals("changestream-overview", dash.get("uid").asText());
        List<String> titles = new ArrayList<>();
        dash.get("panels").forEach(p -> titles.add(p.get("title").asText()));
        for (String row : List.of("Lag", "Throughput", "Latency", "DLQ and failures", "SSE log streams",
                "Lag runbook: 1 enqueue wait → 2 queue length → 3 process time", "Buffers, DLQ depth and windows",
                "1. Enqueue wait (poll → lane worker)", "2. Lane queues: deepest lane, busiest lanes, delay queue",
                "3. Process time by event type", "Buffer usage (1 = partitions pause)",
                "DLQ depth (records held in alert-dlq)", "Window evictions")) {
            assertTrue(titles.contains(row), "dashboard row or panel " + row + " in " + titles);
        }
        // the runbook's panels use the meters it names (ops/README.md, Lag)
        String json = Files.readString(ROOT.resolve("ops/grafana/dashboards/changestream.json"));
        for (String metric : List.of("changestream_runtime_enqueue_wait_seconds_bucket",
                "changestream_runtime_lane_queue_deepest", "changestream_alert_processing_seconds_bucket",
                "changestream_runtime_buffer_usage_ratio", "changestream_alert_dlq_depth")) {
            assertTrue(json.contains(metric), "the dashboard plots " + metric);
        }
        String datasource = Files.readString(ROOT.resolve("ops/grafana/provisioning/datasources/prometheus.yml"));
        assertTrue(datasource.contains("uid: changestream-prometheus"), datasource);
    }

    @Test
    void connectConfigUsesTheShippedTransformAndItAcceptsTheSettings() throws Exception {
        JsonNode config = new ObjectMapper().readTree(ROOT.resolve("ops/connect/changestream-postgres.json").toFile())
                .get("config");
        assertEquals("io.debezium.connector.postgresql.PostgresConnector", config.get("connector.class").asText());
        String type = config.get("transforms.changestream.type").asText();
        assertEquals(ChangeEventTransform.class.getName(), type);
        Map<String, String> smt = new HashMap<>();
        String prefix = "transforms.changestream.";
        for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().startsWith(prefix) && !e.getKey().equals(prefix + "type")) {
                smt.put(e.getKey().substring(prefix.length()), e.getValue().asText());
            }
        }
        try (ChangeEventTransform<SourceRecord> transform = new ChangeEventTransform<>()) {
            transform.configure(smt);
            assertNotNull(transform.config());
        }
        assertTrue(config.get("database.password").asText().startsWith("${file:"),
                "the password comes from a config provider, never inline");
    }
}
