package io.changestream.logs;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the log-tailer: {@code LogTailerMain <config.properties>} (environment overrides {@code LOG_TAILER_*}).
 * Runs until SIGTERM/SIGINT, then closes the server from the shutdown hook. Logs with the jar's
 * {@code log-tailer-logback.xml} unless {@code -Dlogback.configurationFile} is given.
 */
public final class LogTailerMain {

    private static final String LOGBACK_CONFIG = "logback.configurationFile";

    private LogTailerMain() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: LogTailerMain <config.properties>");
            System.exit(2);
        }
        if (System.getProperty(LOGBACK_CONFIG) == null) {
            System.setProperty(LOGBACK_CONFIG, "log-tailer-logback.xml");
        }
        LogTailerConfig config = LogTailerConfig.load(Path.of(args[0]));
        LogTailerServer server = LogTailerServer.start(config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "log-tailer-shutdown"));
        stopped.await();
    }
}
