package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;

import io.changestream.cdc.CdcMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The connector as a child JVM ({@link CdcMain} on this JVM's class path), for crash and standby tests: SIGKILL,
 * SIGTERM, readiness over its HTTP endpoint. Output goes to {@code target/<name>.log}. Test thread only.
 */
final class ConnectorProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final int port;

    private ConnectorProcess(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    static ConnectorProcess start(String name, Map<String, String> settings) {
        try {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Map<String, String> all = new HashMap<>(settings);
            all.put("http.port", Integer.toString(port));
            Path dir = Files.createDirectories(Path.of("target", "connector-processes"));
            Path config = dir.resolve(name + ".properties");
            Properties properties = new Properties();
            properties.putAll(all);
            try (Writer writer = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                properties.store(writer, "cdc-connector child process " + name);
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), CdcMain.class.getName(),
                    config.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile()))
                    .start();
            return new ConnectorProcess(name, process, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start connector process " + e.getMessage(), e);
        }
    }

    /** True when {@code /health/ready} answers 200. */
    boolean ready() {
        return answers200("/health/ready");
    }

    /** True when {@code /health/live} answers 200 (the process runs and serves HTTP). */
    boolean live() {
        return answers200("/health/live");
    }

    private boolean answers200(String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(2)).build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void awaitReady(Duration timeout) {
        await(name + " ready").atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " (see target/"
                        + "connector-processes/" + name + ".log)");
            }
            return ready();
        });
    }

    /** SIGKILL, and wait until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM; returns the exit code, or -1 when it did not exit within {@code timeout}. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
