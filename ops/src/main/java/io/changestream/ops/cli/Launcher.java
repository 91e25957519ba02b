package io.changestream.ops.cli;

import io.changestream.ops.OpsException;
import io.changestream.ops.UsageException;
import io.changestream.ops.service.StopSignal;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The root {@code changestream} command: builds the picocli command tree and maps outcomes to exit codes
 * (0 success, 1 runtime failure, 2 usage error; the reason in one line on stderr). Also the context every subcommand
 * reads: environment, clock and output streams, injected so tests can run commands in-process.
 * One instance per invocation; called from the launching thread.
 */
@Command(name = "changestream", mixinStandardHelpOptions = true, versionProvider = Launcher.Version.class,
        description = "Kafka-native change events, alerts and live ingestion logs: services and operator tools.",
        subcommands = {DevCommand.class, DemoCommand.class, CdcCommand.class, AlertsCommand.class, LogsCommand.class, TopicsCommand.class,
                OffsetsCommand.class, SubscriptionsCommand.class, DlqCommand.class})
public final class Launcher implements Runnable {

    /** Exit code of a successful command. */
    public static final int OK = 0;
    /** Exit code of a command that failed at run time. */
    public static final int FAILED = 1;
    /** Exit code of a command used wrongly. */
    public static final int USAGE = 2;

    private final Map<String, String> env;
    private final Clock clock;
    private final Supplier<StopSignal> stopSignal;

    @Spec
    CommandSpec spec;

    /**
     * @param env   the environment variables commands read ({@code System.getenv()} in production)
     * @param clock the clock time-relative options use
     */
    public Launcher(Map<String, String> env, Clock clock) {
        this(env, clock, StopSignal::onTermOrInt);
    }

    /**
     * @param env        the environment variables commands read
     * @param clock      the clock time-relative options use
     * @param stopSignal what long-running commands wait for (SIGTERM/SIGINT in production; a manual one in tests)
     */
    public Launcher(Map<String, String> env, Clock clock, Supplier<StopSignal> stopSignal) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
        this.clock = Objects.requireNonNull(clock, "clock");
        this.stopSignal = Objects.requireNonNull(stopSignal, "stopSignal");
    }

    /** Runs {@code args} with output to {@code out}/{@code err} and returns the exit code. */
    public int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cmd = new CommandLine(this);
        cmd.setOut(out);
        cmd.setErr(err);
        cmd.setParameterExceptionHandler((ex, arguments) -> {
            err.println(qualifiedName(ex.getCommandLine()) + ": " + ex.getMessage() + " (see --help)");
            err.flush();
            return USAGE;
        });
        cmd.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            err.println(qualifiedName(commandLine) + ": " + reason(ex));
            err.flush();
            return ex instanceof UsageException ? USAGE : FAILED;
        });
        int code = cmd.execute(args);
        out.flush();
        return code;
    }

    /** The environment commands read. */
    Map<String, String> env() {
        return env;
    }

    /** The clock commands read. */
    Clock clock() {
        return clock;
    }

    /** The stop signal a long-running command waits for (created, and signal handlers installed, on first use). */
    StopSignal stopSignal() {
        return stopSignal.get();
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /** The root context of any command in the tree. */
    static Launcher of(CommandSpec spec) {
        return (Launcher) spec.root().userObject();
    }

    private static String qualifiedName(CommandLine commandLine) {
        return commandLine.getCommandSpec().qualifiedName();
    }

    private static String reason(Exception ex) {
        if (ex instanceof OpsException) {
            return ex.getMessage();
        }
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : ": " + root.getMessage();
        return (root.getClass().getSimpleName() + message).replace('\n', ' ');
    }

    /** The version from the jar manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Launcher.class.getPackage().getImplementationVersion();
            return new String[] {"changestream " + (v == null ? "development" : v)};
        }
    }
}
