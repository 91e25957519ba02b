package io.changestream.ops.artifact;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of the packaged {@code ops/target/changestream.jar} as {@code ops/changestream alerts --config FILE}: a child
 * JVM with nothing of the test's classpath, its stderr in a log file, its stdout drained. {@link #stop} sends SIGTERM
 * ({@link Process#destroy()}) and measures how long the process takes to exit; {@link #close} kills what is left.
 * Used by the test thread only.
 */
final class ShippedJar implements AutoCloseable {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern STARTED = Pattern.compile("alert-consumer started: http://localhost:(\\d+)/");

    private final Process process;
    private final Path log;
    private final int port;

    private ShippedJar(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** How a SIGTERM ended: the exit status and the time from the signal to the exit. */
    record Stop(int exitStatus, Duration took) {
    }

    /** Starts the jar on {@code settings} (written to {@code name}.properties in {@code dir}); waits for its banner. */
    static ShippedJar start(Path dir, String name, String settings) throws IOException {
        Path jar = ROOT.resolve("ops/target/changestream.jar");
        assertTrue(Files.isRegularFile(jar), "the fat jar is packaged before the ITs run: " + jar);
        Path config = dir.resolve(name + ".properties");
        Files.writeString(config, settings);
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("ops/changestream").toString(), "alerts",
                "--config", config.toString()).redirectError(log.toFile());
        pb.environment().put("CHANGESTREAM_SKIP_BUILD", "1");
        pb.environment().put("JAVA_OPTS", "-Xmx384m");
        Process process = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        String line;
        while ((line = out.readLine()) != null && System.nanoTime() < deadline) {
            Matcher m = STARTED.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> drain(out), "shipped-jar-stdout");
                drain.setDaemon(true);
                drain.start();
                return new ShippedJar(process, log, Integer.parseInt(m.group(1)));
            }
        }
        process.destroyForcibly();
        throw new AssertionError("the shipped alert service did not start: " + Files.readString(log));
    }

    /** Reads the child's stdout until it ends (the process exited or was stopped). */
    private static void drain(BufferedReader out) {
        try {
            out.lines().forEach(l -> { });
        } catch (java.io.UncheckedIOException e) {
            // the stream closed with the process
        }
    }

    /** The admin API's port. */
    int port() {
        return port;
    }

    /** The service's log so far (stderr). */
    String log() throws IOException {
        return Files.readString(log);
    }

    /** SIGTERM, then waits up to {@code patience} for the exit; an AssertionError (with the log) if it did not. */
    Stop stop(Duration patience) throws IOException, InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("no exit " + patience + " after SIGTERM: " + log());
        }
        return new Stop(process.exitValue(), Duration.ofNanos(System.nanoTime() - start));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
