package io.changestream.ops;

import io.changestream.ops.cli.Launcher;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/** Entry point of the {@code changestream} launcher ({@code ops/changestream}); exits with the command's code. */
public final class Main {

    private static final java.util.Set<String> SERVICES = java.util.Set.of("cdc", "alerts", "logs", "dev", "demo");

    private Main() {
    }

    /** Runs one command and exits with 0 (success), 1 (runtime failure) or 2 (usage error). */
    public static void main(String[] args) {
        // operator tools print tables on stdout: only warnings of ours on stderr; services log at INFO
        boolean service = args.length > 0 && SERVICES.contains(args[0]);
        System.setProperty("changestream.log.level", service ? "INFO" : "WARN");
        try {
            System.setProperty(LogFormat.PROPERTY, LogFormat.resolve(System.getProperty(LogFormat.PROPERTY),
                    System.getenv()));
        } catch (UsageException e) {
            System.err.println("changestream: " + e.getMessage());
            System.exit(2);
        }
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = new Launcher(System.getenv(), Clock.systemUTC()).run(out, err, args);
        System.exit(code);
    }
}
