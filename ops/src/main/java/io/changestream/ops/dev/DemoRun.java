package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo pieces of the dev stack — the webhook sink, the demo subscription and the demo writer — run on their own
 * against a database and an alert service that run elsewhere ({@code changestream demo}, the compose {@code demo}
 * profile). The same classes {@link DevStack} uses; started by the caller's thread, closed in reverse order.
 */
public final class DemoRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);

    /**
     * Where the demo runs.
     *
     * @param db             the platform database (its change_event and pipeline tables must exist)
     * @param jdbcUrl        that database's URL, for printing
     * @param alertsUrl      the alert service's base URL
     * @param token          its admin bearer token
     * @param logsRoot       log-tailer's storage root (shared with the log-tailer)
     * @param webhookBind    the sink's bind address
     * @param webhookPort    the sink's port
     * @param webhookHost    the host the alert service reaches the sink by
     * @param eventInterval  pause between demo change events
     * @param linesPerRun    log lines per demo pipeline run
     * @param startTimeout   bound on waiting for the alert service to accept the subscription
     */
    public record Settings(DataSource db, String jdbcUrl, URI alertsUrl, String token, Path logsRoot,
                           String webhookBind, int webhookPort, String webhookHost, Duration eventInterval,
                           int linesPerRun, Duration startTimeout) {
        public Settings {
            Objects.requireNonNull(db, "db");
            Objects.requireNonNull(alertsUrl, "--alerts-url");
            Objects.requireNonNull(logsRoot, "--logs-dir");
            if (token == null || token.length() < 16) {
                throw new io.changestream.ops.UsageException("the alert service token (--token or "
                        + "CHANGESTREAM_DEMO_TOKEN) is required, >= 16 chars");
            }
            if (startTimeout == null || startTimeout.isNegative() || startTimeout.isZero()) {
                throw new io.changestream.ops.UsageException("--start-timeout must be > 0");
            }
        }
    }

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private WebhookSink webhook;
    private DemoWriter writer;
    private SubscriptionsClient.Applied subscription;

    private DemoRun() {
    }

    /** Starts the sink, applies the subscription (waiting for the alert service), starts the writer. */
    public static DemoRun start(Settings s, PrintWriter out, Clock clock) {
        DemoRun run = new DemoRun();
        try {
            run.webhook = run.track(WebhookSink.start(s.webhookBind(), s.webhookPort(), s.webhookHost(), out));
            say(out, "webhook sink listening on " + s.webhookBind() + ":" + s.webhookPort()
                    + "; deliveries are printed here as 'webhook <- …'");
            run.subscription = applyWhenReady(s, DemoSubscription.write(s.logsRoot().resolve(".demo"),
                    run.webhook.url()), out);
            say(out, "subscription '" + run.subscription.name() + "' (" + run.subscription.id() + ") "
                    + (run.subscription.created() ? "created" : "updated") + " in " + s.alertsUrl()
                    + ", delivering to " + run.webhook.url());
            run.writer = run.track(new DemoWriter(s.db(), s.logsRoot(), s.eventInterval(), s.linesPerRun(), clock)
                    .start());
            say(out, "writing a table change every " + s.eventInterval() + " to " + s.jdbcUrl()
                    + " and pipeline-run logs of " + DemoWriter.PIPELINE_FQN + " under " + s.logsRoot());
            return run;
        } catch (RuntimeException e) {
            run.close();
            throw e;
        }
    }

    private static SubscriptionsClient.Applied applyWhenReady(Settings s, Path file, PrintWriter out) {
        long deadline = System.nanoTime() + s.startTimeout().toNanos();
        SubscriptionsClient client = new SubscriptionsClient(s.alertsUrl(), s.token(), Duration.ofSeconds(10));
        boolean waiting = false;
        while (true) {
            try {
                return client.apply(List.of(file)).get(0);
            } catch (OpsException e) {
                if (System.nanoTime() > deadline) {
                    throw new OpsException("the alert service at " + s.alertsUrl() + " did not accept the demo "
                            + "subscription within " + s.startTimeout() + ": " + e.getMessage(), e);
                }
                if (!waiting) {
                    say(out, "waiting for the alert service at " + s.alertsUrl() + " (" + e.getMessage() + ")");
                    waiting = true;
                }
                LOG.debug("alert service not ready yet", e);
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new OpsException("interrupted while waiting for the alert service", ie);
                }
            }
        }
    }

    private static void say(PrintWriter out, String line) {
        synchronized (out) {
            out.println("demo: " + line);
            out.flush();
        }
    }

    private <T extends AutoCloseable> T track(T part) {
        started.push(part);
        return part;
    }

    /** The sink. */
    public WebhookSink webhook() {
        return webhook;
    }

    /** The writer. */
    public DemoWriter writer() {
        return writer;
    }

    /** The applied subscription. */
    public SubscriptionsClient.Applied subscription() {
        return subscription;
    }

    /** Stops the writer, then the sink. Idempotent. */
    @Override
    public void close() {
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                LOG.warn("demo: a part did not stop cleanly", e);
            }
        }
    }
}
