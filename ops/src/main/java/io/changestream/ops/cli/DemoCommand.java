package io.changestream.ops.cli;

import io.changestream.ops.dev.DemoRun;
import io.changestream.ops.service.StopSignal;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code changestream demo}: only the dev stack's demo pieces, against a database and alert service elsewhere. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Run the dev stack's demo pieces against a running stack (the compose 'demo' profile): the "
                + "demo webhook sink (prints every delivery), the demo subscription (applied to --alerts-url) and "
                + "the demo writer (table changes into the platform database, pipeline runs with logs under "
                + "--logs-dir). Ctrl-C / SIGTERM stops it.",
                "Secrets from the environment: CHANGESTREAM_DEMO_TOKEN (if --token is not given), "
                        + "CHANGESTREAM_DEMO_POSTGRES_PASSWORD."})
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--postgres-url", required = true, paramLabel = "JDBC-URL",
            description = "The platform database, e.g. jdbc:postgresql://postgres:5432/metadata.")
    String postgresUrl;

    @Option(names = "--postgres-user", defaultValue = "postgres", description = "Its user (default "
            + "${DEFAULT-VALUE}).")
    String postgresUser;

    @Option(names = "--alerts-url", required = true, paramLabel = "URL",
            description = "The alert service, e.g. http://alert-consumer-1:8591.")
    URI alertsUrl;

    @Option(names = "--token", description = "The alert service's admin token (default: $CHANGESTREAM_DEMO_TOKEN).")
    String token;

    @Option(names = "--logs-dir", required = true, description = "log-tailer's storage.root (a shared volume).")
    Path logsDir;

    @Option(names = "--webhook-bind", defaultValue = "0.0.0.0", description = "Bind address of the webhook sink "
            + "(default ${DEFAULT-VALUE}).")
    String webhookBind;

    @Option(names = "--webhook-port", defaultValue = "8599", description = "Port of the webhook sink (default "
            + "${DEFAULT-VALUE}).")
    int webhookPort;

    @Option(names = "--webhook-host", defaultValue = "demo", description = "Host name the alert service reaches "
            + "the sink by (default ${DEFAULT-VALUE}, the compose service).")
    String webhookHost;

    @Option(names = "--event-interval", defaultValue = "PT2S", description = "Pause between demo change events "
            + "(default ${DEFAULT-VALUE}).")
    Duration eventInterval;

    @Option(names = "--lines-per-run", defaultValue = "10", description = "Log lines per demo pipeline run "
            + "(default ${DEFAULT-VALUE}).")
    int linesPerRun;

    @Option(names = "--start-timeout", defaultValue = "PT120S", description = "Bound on waiting for the alert "
            + "service (default ${DEFAULT-VALUE}).")
    Duration startTimeout;

    @Override
    public Integer call() throws InterruptedException {
        Launcher launcher = Launcher.of(spec);
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setUrl(postgresUrl);
        db.setUser(postgresUser);
        String password = launcher.env().get("CHANGESTREAM_DEMO_POSTGRES_PASSWORD");
        if (password != null) {
            db.setPassword(password);
        }
        DemoRun.Settings settings = new DemoRun.Settings(db, postgresUrl, alertsUrl,
                token != null ? token : launcher.env().get("CHANGESTREAM_DEMO_TOKEN"), logsDir, webhookBind,
                webhookPort, webhookHost, eventInterval, linesPerRun, startTimeout);
        PrintWriter out = spec.commandLine().getOut();
        StopSignal stop = launcher.stopSignal();
        try (DemoRun run = DemoRun.start(settings, out, launcher.clock())) {
            stop.await();
            out.println("demo: stopping after " + run.writer().eventsWritten() + " change events, "
                    + run.webhook().received() + " deliveries received");
            out.flush();
        }
        return Launcher.OK;
    }
}
