package io.changestream.ops.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.ops.dev.DemoSubscription;
import io.changestream.ops.dev.DemoWriter;
import io.changestream.ops.service.StopSignal;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code changestream demo} — what the compose {@code demo} profile runs — against a stack that runs elsewhere: a
 * real PostgreSQL with the platform's tables, a cdc-connector and an alert service on the shared broker. The demo
 * must apply its subscription, write table changes and run logs, and print the alerts its webhook sink receives
 * through capture and delivery; then stop cleanly on the stop signal.
 */
class DemoCommandIT {

    private static final String TOKEN = "demo-test-token-0123456789";

    @Test
    void demoWritesChangesAndPrintsTheAlertsTheStackDeliversToItsSink(@TempDir Path dir) throws Exception {
        KafkaBroker broker = Brokers.shared();
        String ns = "demo" + UUID.randomUUID().toString().substring(0, 6) + ".";
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(new TopicCatalog(ns).withReplicationFactor((short) 1)
                    .withPartitions(CatalogTopic.CHANGES, 2).all());
        }
        String slot = "cs_demo_" + UUID.randomUUID().toString().substring(0, 8);
        try (PostgresDatabase pg = PostgresDatabase.start()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            try (CdcConnector cdc = new CdcConnector(CdcConfig.fromMap(cdc(broker, pg, ns, slot))).start();
                 AlertService alerts = AlertService.start(AlertServiceConfig.from(alerts(broker, ns), Map.of()))) {
                await().atMost(Duration.ofSeconds(60)).until(cdc::streaming);
                await().atMost(Duration.ofSeconds(60)).until(alerts::ready);
                int webhookPort;
                try (ServerSocket s = new ServerSocket(0)) {
                    webhookPort = s.getLocalPort();
                }
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                StopSignal stop = StopSignal.manual();
                Path logs = dir.resolve("logs");
                String alertsUrl = "http://127.0.0.1:" + alerts.httpPort();
                CompletableFuture<Integer> run = CompletableFuture.supplyAsync(() ->
                        new Launcher(Map.of("CHANGESTREAM_DEMO_TOKEN", TOKEN,
                                "CHANGESTREAM_DEMO_POSTGRES_PASSWORD", PostgresDatabase.PASSWORD),
                                Clock.systemUTC(), () -> stop).run(new PrintWriter(out, true), new PrintWriter(err, true),
                                "demo", "--postgres-url", pg.jdbcUrl(), "--postgres-user", PostgresDatabase.USER,
                                "--alerts-url", alertsUrl, "--logs-dir", logs.toString(),
                                "--webhook-bind", "127.0.0.1", "--webhook-host", "127.0.0.1",
                                "--webhook-port", Integer.toString(webhookPort), "--event-interval", "PT0.2S",
                                "--lines-per-run", "3", "--start-timeout", "PT60S"));
                // alerts the stack delivered, printed by the demo's sink
                await().atMost(Duration.ofSeconds(90)).until(() -> run.isDone()
                        || out.toString().lines().filter(l -> l.startsWith("webhook <- ")).count() >= 3);
                assertTrue(!run.isDone(), "the demo keeps running: " + out + err);
                String printed = out.toString();
                assertTrue(printed.contains("demo: subscription '" + DemoSubscription.NAME + "'"), printed);
                assertTrue(printed.contains("created in " + alertsUrl), printed);
                assertTrue(printed.contains("demo: writing a table change every PT0.2S"), printed);
                assertTrue(printed.lines().anyMatch(l -> l.startsWith("webhook <- ") && l.contains("table")
                        && l.contains("Idempotency-Key=")), printed);
                assertTrue(new SubscriptionsClient(URI.create(alertsUrl), TOKEN, Duration.ofSeconds(10)).list()
                        .stream().anyMatch(s -> s.name().equals(DemoSubscription.NAME)));
                Path runLogs = logs.resolve(DemoWriter.PIPELINE_FQN);
                try (Stream<Path> files = Files.walk(runLogs)) {
                    assertTrue(files.anyMatch(p -> p.getFileName().toString().equals("logs.txt")),
                            "run logs under " + runLogs);
                }
                stop.release();
                assertEquals(0, run.get(30, TimeUnit.SECONDS), err.toString());
                assertTrue(out.toString().contains("demo: stopping after"), out.toString());
            }
        }
    }

    @Test
    void withoutATokenTheDemoIsAUsageError(@TempDir Path dir) {
        Cli.Result r = Cli.run(Map.of(), "demo", "--postgres-url", "jdbc:postgresql://127.0.0.1:9/x",
                "--alerts-url", "http://127.0.0.1:9", "--logs-dir", dir.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("CHANGESTREAM_DEMO_TOKEN"), r.err());
    }

    private static Map<String, String> cdc(KafkaBroker broker, PostgresDatabase pg, String ns, String slot) {
        Map<String, String> s = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), ns, slot);
        s.put("poll.interval.ms", "10");
        s.put("postgres.slot.drop.on.stop", "true");
        return s;
    }

    private static Map<String, String> alerts(KafkaBroker broker, String ns) {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", ns);
        s.put("group.id", "ops-demo-" + ns);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        s.put("runtime.commitInterval", "500");
        return s;
    }
}
