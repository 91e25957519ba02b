package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.serde.Json;
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
import org.apache.kafka.connect.cli.ConnectDistributed;

/**
 * One Kafka Connect worker in distributed mode: Kafka's own {@link ConnectDistributed} as a child JVM on this JVM's
 * class path (Debezium's Postgres connector and our transform are on it, so they are found as class-path plugins),
 * with its REST API on a port of its own. Output goes to {@code target/connect-workers/<name>.log}. Test thread only.
 */
final class ConnectWorker implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final int port;

    private ConnectWorker(String name, Process process, int port) {
        this.name = name;
        this.process = process;
        this.port = port;
    }

    /** Starts a worker with {@code settings} plus its REST listener on a free loopback port. */
    static ConnectWorker start(String name, Map<String, String> settings) {
        try {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Map<String, String> all = new HashMap<>(settings);
            all.put("listeners", "http://127.0.0.1:" + port);
            all.put("rest.advertised.host.name", "127.0.0.1");
            all.put("rest.advertised.port", Integer.toString(port));
            Path dir = Files.createDirectories(Path.of("target", "connect-workers"));
            Path config = dir.resolve(name + ".properties");
            Properties properties = new Properties();
            properties.putAll(all);
            try (Writer writer = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                properties.store(writer, "Kafka Connect worker " + name);
            }
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(List.of(java, "-Xmx384m", "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    ConnectDistributed.class.getName(), config.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile()))
                    .start();
            return new ConnectWorker(name, process, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Connect worker " + name + ": " + e.getMessage(), e);
        }
    }

    /** The id Connect gives this worker in a connector's status ({@code host:port}). */
    String workerId() {
        return "127.0.0.1:" + port;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Waits until the REST API answers (the worker joined its group and read its config topic). */
    void awaitUp(Duration timeout) {
        await(name + " REST API").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " (see target/"
                        + "connect-workers/" + name + ".log)");
            }
            try {
                return send("GET", "/connectors", null).statusCode() == 200;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    /** PUT {@code /connectors/<connector>/config}: creates or updates the connector. */
    void putConnector(String connector, Map<String, String> config) throws IOException, InterruptedException {
        HttpResponse<String> response = send("PUT", "/connectors/" + connector + "/config",
                Json.mapper().writeValueAsString(config));
        if (response.statusCode() / 100 != 2) {
            throw new AssertionError("PUT connector " + connector + ": " + response.statusCode() + " "
                    + response.body());
        }
    }

    /** GET {@code /connectors/<connector>/status}, parsed; null while the connector is unknown. */
    JsonNode status(String connector) throws IOException, InterruptedException {
        HttpResponse<String> response = send("GET", "/connectors/" + connector + "/status", null);
        return response.statusCode() == 200 ? Json.mapper().readTree(response.body()) : null;
    }

    private HttpResponse<String> send(String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** SIGKILL, and wait until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM (a graceful stop), then SIGKILL after 20 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            kill();
        }
    }
}
