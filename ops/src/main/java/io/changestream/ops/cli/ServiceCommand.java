package io.changestream.ops.cli;

import io.changestream.ops.UsageException;
import io.changestream.settings.ConfigText;
import io.changestream.ops.service.StopSignal;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs one service in the foreground: loads its config file with its environment overrides, prints the effective
 * config ({@code --print-config}, secrets masked) or starts the service and stops it gracefully on SIGTERM/Ctrl-C.
 * Runs on the launching thread.
 *
 * @param <C> the service's validated config record
 */
abstract class ServiceCommand<C> implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
            description = "The service's properties file; environment variables override its keys.")
    Path config;

    @Option(names = "--print-config", description = "Print the effective config (secrets masked) and exit.")
    boolean printConfig;

    /** Reads and validates the config; a bad setting throws (turned into a usage error naming it). */
    abstract C load(Path file, Map<String, String> env) throws Exception;

    /** Starts the service; the returned handle stops it. */
    abstract AutoCloseable start(C config);

    /** One line saying where the started service listens. */
    abstract String started(AutoCloseable service);

    @Override
    public Integer call() throws Exception {
        Launcher launcher = Launcher.of(spec);
        if (!Files.isRegularFile(config)) {
            throw new UsageException("config file " + config + " does not exist");
        }
        C loaded;
        try {
            loaded = load(config, launcher.env());
        } catch (UsageException e) {
            throw e;
        } catch (Exception e) {
            throw new UsageException("bad config " + config + ": " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (printConfig) {
            ConfigText.flatten(loaded).forEach((k, v) -> out.println(k + " = " + v));
            out.flush();
            return Launcher.OK;
        }
        StopSignal stop = launcher.stopSignal();
        try (AutoCloseable service = start(loaded)) {
            out.println(started(service));
            out.flush();
            stop.await();
            out.println(spec.qualifiedName() + ": stopping");
            out.flush();
        }
        return Launcher.OK;
    }
}
