package io.changestream.ops.dev;

import io.changestream.cdc.CdcConfig;
import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.logs.LogTailerConfig;
import io.changestream.logs.LogTailerServer;
import io.changestream.ops.OpsException;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded dev stack: a KRaft broker (child process), PostgreSQL with logical decoding, the topic catalog, the
 * cdc-connector, the alert-consumer (with a demo subscription) and the log-tailer in this JVM, a demo webhook sink
 * and a demo writer. Started in dependency order by
 * {@link #start}; {@link #close()} stops everything in reverse order, each part on its own so one failure does not
 * leave the others running. Started and closed by the launching thread.
 */
public final class DevStack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DevStack.class);
    private static final Duration WAIT_POLL = Duration.ofMillis(100);

    private final DevSettings settings;
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private KafkaProcess kafka;
    private DevPostgres postgres;
    private WebhookSink webhook;
    private CdcConnector cdc;
    private LogTailerServer logs;
    private AlertService alerts;
    private DemoWriter writer;

    private DevStack(DevSettings settings) {
        this.settings = settings;
    }

    /** Starts every part, or stops what started and throws. */
    public static DevStack start(DevSettings settings, PrintWriter out, Clock clock) {
        DevStack stack = new DevStack(settings);
        try {
            stack.startAll(out, clock);
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll(PrintWriter out, Clock clock) {
        Path dir = settings.dataDir().toAbsolutePath();
        try {
            Files.createDirectories(dir.resolve("logs").resolve(DemoWriter.PIPELINE_FQN));
        } catch (IOException e) {
            throw new OpsException("cannot create the data directory " + dir + ": " + e.getMessage(), e);
        }
        progress(out, "starting Kafka (KRaft, " + dir.resolve("kafka") + ")");
        kafka = track(KafkaProcess.start(dir.resolve("kafka"), settings.kafkaPort(), settings.startTimeout(),
                settings.stopTimeout()));
        progress(out, "starting PostgreSQL (wal_level=logical, " + dir.resolve("postgres") + ")");
        postgres = track(DevPostgres.start(dir.resolve("postgres"), settings.postgresPort(), settings.startTimeout()));
        progress(out, "provisioning topics");
        provisionTopics();
        webhook = track(WebhookSink.start(settings.webhookPort(), out));
        progress(out, "starting cdc-connector");
        cdc = track(new CdcConnector(CdcConfig.fromMap(cdcSettings())).start());
        await(cdc::streaming, "the cdc-connector to stream from PostgreSQL");
        progress(out, "starting log-tailer");
        logs = track(LogTailerServer.start(LogTailerConfig.from(logTailerSettings(dir), Map.of())));
        progress(out, "starting alert-consumer");
        alerts = track(AlertService.start(AlertServiceConfig.from(alertSettings(), Map.of())));
        await(alerts::ready, "the alert-consumer to be ready");
        List<SubscriptionsClient.Applied> demo = new SubscriptionsClient(URI.create(alertsUrl()), settings.token(),
                settings.startTimeout()).apply(List.of(DemoSubscription.write(dir, webhook.url()),
                DemoSubscription.writeLineage(dir, webhook.lineageUrl())));
        progress(out, "demo subscriptions '" + demo.get(0).name() + "' (to " + webhook.url() + ") and '"
                + demo.get(1).name() + "' (OpenLineage, to " + webhook.lineageUrl() + ")");
        writer = track(new DemoWriter(postgres.dataSource(), dir.resolve("logs"), settings.eventInterval(),
                settings.linesPerRun(), clock).start());
    }

    private void provisionTopics() {
        TopicCatalog catalog = catalog();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
    }

    /**
     * The dev catalog, the one layout of the dev stack: replication 1, three partitions of changes (so of the ledger)
     * and of pipeline-status. Only the dev stack provisions it; the cdc-connector and the alert service read it.
     */
    static TopicCatalog catalog() {
        return new TopicCatalog(DevSettings.NAMESPACE).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 3).withPartitions(CatalogTopic.LOG_CHUNKS, 3)
                .withPartitions(CatalogTopic.PIPELINE_STATUS, 3).withPartitions(CatalogTopic.ALERT_DLQ, 1);
    }

    private Map<String, String> cdcSettings() {
        // trust authentication: no password
        Map<String, String> s = new LocalPostgresCapture("127.0.0.1", postgres.port(), DevPostgres.DATABASE,
                DevPostgres.USER, null).settings(kafka.bootstrapServers(), DevSettings.NAMESPACE);
        s.put("heartbeat.interval.ms", "5000");
        // the dev stack provisioned its catalog (provisionTopics): the connector's own defaults (changes 12,
        // pipeline-status 6) would raise those past the ledger's 3 partitions (issue 23)
        s.put("kafka.create.topics", "false");
        s.put("http.port", Integer.toString(settings.cdcPort()));
        s.put("mask.pointers", "/connection/config/password");
        return s;
    }

    private Map<String, String> alertSettings() {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        s.put("topics.namespace", DevSettings.NAMESPACE);
        s.put("group.id", "changestream-alerts-dev");
        s.put("http.host", "127.0.0.1");
        s.put("http.port", Integer.toString(settings.alertsPort()));
        s.put("admin.bearerToken", settings.token());
        // the demo webhook sink listens on loopback, which the SSRF guard refuses by default
        s.put("destinations.allowPrivateAddresses", "true");
        s.put("runtime.commitInterval", "500");
        return s;
    }

    /** Each service's {@code /metrics} URL by service name. */
    public Map<String, String> metricsUrls() {
        Map<String, String> urls = new java.util.LinkedHashMap<>();
        urls.put("cdc-connector", "http://127.0.0.1:" + cdc.httpPort() + "/metrics");
        urls.put("alert-consumer", alertsUrl() + "/metrics");
        urls.put("log-tailer", logsUrl() + "/metrics");
        return urls;
    }

    /** The data directory. */
    public Path dataDir() {
        return settings.dataDir().toAbsolutePath();
    }

    /** The alert service's base URL. */
    public String alertsUrl() {
        return "http://127.0.0.1:" + alerts.httpPort();
    }

    private Properties logTailerSettings(Path dir) {
        Properties p = new Properties();
        p.setProperty("http.host", "127.0.0.1");
        p.setProperty("http.port", Integer.toString(settings.logsPort()));
        p.setProperty("auth.tokens", settings.token());
        p.setProperty("storage.root", dir.resolve("logs").toString());
        p.setProperty("pipelines.known", DemoWriter.PIPELINE_FQN);
        p.setProperty("kafka.bootstrapServers", kafka.bootstrapServers());
        p.setProperty("kafka.namespace", DevSettings.NAMESPACE);
        p.setProperty("kafka.stateDir", dir.resolve("log-tailer-state").toString());
        p.setProperty("kafka.instanceId", "dev");
        p.setProperty("kafka.producerMaxBlockMillis", "1000");
        // quick demo turnarounds: poll and probe every second, complete 2 s after a finished run went quiet
        p.setProperty("stream.pollSeconds", "1");
        p.setProperty("stream.runProbeSeconds", "1");
        p.setProperty("stream.finishGraceSeconds", "2");
        return p;
    }

    private void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new OpsException("timed out after " + settings.startTimeout() + " waiting for " + what);
            }
            try {
                Thread.sleep(WAIT_POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OpsException("interrupted while waiting for " + what, e);
            }
        }
    }

    private <T extends AutoCloseable> T track(T part) {
        started.push(part);
        return part;
    }

    private static void progress(PrintWriter out, String step) {
        out.println("dev: " + step + " ...");
        out.flush();
    }

    /** The broker's bootstrap servers. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** The demo webhook sink. */
    public WebhookSink webhook() {
        return webhook;
    }

    /** The demo writer. */
    public DemoWriter writer() {
        return writer;
    }

    /** The log-tailer's base URL. */
    public String logsUrl() {
        return "http://127.0.0.1:" + logs.port();
    }

    /**
     * The viewer page of the demo run being written now (waiting up to the start timeout for the first), the token
     * in the fragment so the URL opens as is; without a run yet, the page that lists the pipeline's runs.
     */
    public String viewerUrl() throws InterruptedException {
        String run = writer.awaitCurrentRun(settings.startTimeout());
        return logsUrl() + "/ui/logs.html?fqn=" + DemoWriter.PIPELINE_FQN + (run == null ? "" : "&runId=" + run)
                + "#token=" + settings.token();
    }

    /** What to open and where: printed once everything runs. */
    public String banner() throws InterruptedException {
        String t = settings.token();
        String viewer = viewerUrl();
        String run = writer.currentRun() == null ? "<run>" : writer.currentRun();
        return String.join(System.lineSeparator(),
                "",
                "changestream dev stack is running (data in " + settings.dataDir().toAbsolutePath() + ")",
                "  token                 " + t,
                "  Kafka                 " + kafka.bootstrapServers(),
                "  PostgreSQL            jdbc:postgresql://127.0.0.1:" + postgres.port() + "/" + DevPostgres.DATABASE
                        + " (user " + DevPostgres.USER + ")",
                "  SSE log viewer        " + viewer + "  (the demo run being written now)",
                "  recent runs           " + logsUrl() + "/ui/logs.html?fqn=" + DemoWriter.PIPELINE_FQN + "#token="
                        + t + "  (newest first; logs in " + settings.dataDir().resolve("logs")
                        .resolve(DemoWriter.PIPELINE_FQN) + ")",
                "  SSE with curl         curl -N -H 'Authorization: Bearer " + t + "' " + logsUrl()
                        + "/api/v1/services/ingestionPipelines/logs/" + DemoWriter.PIPELINE_FQN + "/stream/" + run,
                "  alert admin API       " + alertsUrl() + SubscriptionsClient.PATH + "  (curl -H 'Authorization: "
                        + "Bearer " + t + "' ...; ops/changestream subscriptions list --url " + alertsUrl() + ")",
                "  metrics               http://127.0.0.1:" + cdc.httpPort() + "/metrics (cdc-connector), "
                        + alertsUrl() + "/metrics (alert-consumer), " + logsUrl() + "/metrics (log-tailer)",
                "  demo webhook sink     " + webhook.url() + " (deliveries are printed below)",
                "Press Ctrl-C to stop.");
    }

    /** Stops every part in reverse start order; each failure is logged and the rest still stop. Idempotent. */
    @Override
    public void close() {
        while (!started.isEmpty()) {
            AutoCloseable part = started.pop();
            try {
                part.close();
            } catch (Exception e) {
                LOG.warn("stopping {} failed: {}", part.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
