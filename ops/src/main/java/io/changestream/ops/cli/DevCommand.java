package io.changestream.ops.cli;

import io.changestream.ops.dev.DevSettings;
import io.changestream.ops.dev.DevStack;
import io.changestream.ops.dev.SmokeCheck;
import io.changestream.ops.service.StopSignal;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code changestream dev}: the whole stack on this machine, no Docker. */
@Command(name = "dev", mixinStandardHelpOptions = true,
        description = {"Run the embedded stack: a KRaft Kafka broker, PostgreSQL with logical decoding, the topics, "
                + "cdc-connector, alert-consumer (with a demo subscription) and log-tailer, a demo writer of change "
                + "events and pipeline runs with logs, and a demo webhook sink that prints what it receives.",
                "Ctrl-C stops everything cleanly; state stays in --data-dir. --smoke runs the checks and exits 0/1."})
final class DevCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", defaultValue = ".changestream", description = "State directory (default "
            + "${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--kafka-port", defaultValue = "19092", description = "Broker port; the controller takes the "
            + "next one (default ${DEFAULT-VALUE}).")
    int kafkaPort;

    @Option(names = "--postgres-port", defaultValue = "15432", description = "PostgreSQL port (default "
            + "${DEFAULT-VALUE}).")
    int postgresPort;

    @Option(names = "--cdc-port", defaultValue = "8090", description = "cdc-connector HTTP port (default "
            + "${DEFAULT-VALUE}).")
    int cdcPort;

    @Option(names = "--logs-port", defaultValue = "8590", description = "log-tailer HTTP port (default "
            + "${DEFAULT-VALUE}).")
    int logsPort;

    @Option(names = "--alerts-port", defaultValue = "8591", description = "alert-consumer HTTP port (default "
            + "${DEFAULT-VALUE}).")
    int alertsPort;

    @Option(names = "--webhook-port", defaultValue = "8599", description = "Demo webhook sink port (default "
            + "${DEFAULT-VALUE}).")
    int webhookPort;

    @Option(names = "--token", defaultValue = "dev-token-changestream", description = "Bearer token of the APIs, >= 16 chars (default "
            + "${DEFAULT-VALUE}).")
    String token;

    @Option(names = "--event-interval", defaultValue = "PT2S", description = "Pause between demo change events "
            + "(default ${DEFAULT-VALUE}).")
    Duration eventInterval;

    @Option(names = "--lines-per-run", defaultValue = "10", description = "Log lines per demo pipeline run (default "
            + "${DEFAULT-VALUE}).")
    int linesPerRun;

    @Option(names = "--start-timeout", defaultValue = "PT60S", description = "Bound on starting each component "
            + "(default ${DEFAULT-VALUE}).")
    Duration startTimeout;

    @Option(names = "--stop-timeout", defaultValue = "PT30S", description = "Bound on stopping the broker (default "
            + "${DEFAULT-VALUE}).")
    Duration stopTimeout;

    @Option(names = "--smoke", description = "Run bounded: check that change events were captured, alerts reached "
            + "the webhook sink, finished runs reached it as OpenLineage events, a log stream completed and every "
            + "/metrics has HELP text; then stop; exit 0 or 1.")
    boolean smoke;

    @Option(names = "--smoke-timeout", defaultValue = "PT120S", description = "Bound on the smoke checks (default "
            + "${DEFAULT-VALUE}).")
    Duration smokeTimeout;

    @Override
    public Integer call() throws Exception {
        DevSettings settings = new DevSettings(dataDir, kafkaPort, postgresPort, cdcPort, logsPort, alertsPort,
                webhookPort, token, eventInterval, linesPerRun, startTimeout, stopTimeout, smokeTimeout);
        Launcher launcher = Launcher.of(spec);
        PrintWriter out = spec.commandLine().getOut();
        StopSignal stop = smoke ? null : launcher.stopSignal();
        try (DevStack stack = DevStack.start(settings, out, launcher.clock())) {
            out.println(stack.banner());
            out.flush();
            if (smoke) {
                SmokeCheck.Result result = new SmokeCheck(stack, token, smokeTimeout).run();
                out.println("smoke: " + (result.ok() ? "OK" : "FAILED") + " - " + result.summary());
                out.flush();
                if (!result.ok()) {
                    spec.commandLine().getErr().println("changestream dev: smoke check failed: " + result.summary());
                    spec.commandLine().getErr().flush();
                    return Launcher.FAILED;
                }
                return Launcher.OK;
            }
            stop.await();
            out.println("dev: stopping ...");
            out.flush();
        }
        out.println("dev: stopped");
        out.flush();
        return Launcher.OK;
    }
}
