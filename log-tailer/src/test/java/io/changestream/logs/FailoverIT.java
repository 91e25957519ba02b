package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.LogStreamEvent;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two log-tailer processes over one storage root and one broker; the one a viewer streams from is killed with
 * SIGKILL mid-run. The viewer reconnects to the other with its last cursor and, with what it had, holds every line
 * exactly once — although that server's own reader is already past the cursor (a second viewer watches it from the
 * start) and the killed server never published the chunk after it: the topic has no chain from there, so the viewer
 * gets a reader of its own that reads the backend from its cursor.
 */
class FailoverIT {

    private static final String STREAM = "/api/v1/services/ingestionPipelines/logs/svc.pipe/stream/r1";
    private static final int LINES = 1500;

    @TempDir
    Path root;
    private final List<Process> processes = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
    }

    private int spawn(KafkaBroker broker, TopicCatalog catalog, String instance) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path config = root.resolve(instance + ".properties");
        Files.writeString(config, String.join("\n",
                "http.host=127.0.0.1",
                "http.port=" + port,
                "auth.tokens=t",
                "storage.root=" + root.resolve("logs"),
                "kafka.bootstrapServers=" + broker.bootstrapServers(),
                "kafka.namespace=" + catalog.namespace(),
                "kafka.stateDir=" + root.resolve("state-" + instance),
                "kafka.instanceId=" + instance,
                "stream.pollSeconds=0.1",
                "stream.maxReplayBytes=64", ""));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                LogTailerMain.class.getName(), config.toString())
                .redirectErrorStream(true).redirectOutput(root.resolve(instance + ".out").toFile()).start();
        processes.add(process);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(instance + " exited: " + Files.readString(root.resolve(instance + ".out")));
            }
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        });
        return port;
    }

    private SseClient open(int port, String after) throws Exception {
        return SseClient.open(http, URI.create("http://127.0.0.1:" + port + STREAM
                + (after == null ? "" : "?after=" + after)), "t", true);
    }

    private static String lines(int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append("line ").append(i).append('\n');
        }
        return b.toString();
    }

    @Test
    void aViewerOfAKilledServerResumesOnTheOtherWithEveryLineExactlyOnce() throws Exception {
        KafkaBroker broker = Brokers.shared();
        TopicCatalog catalog = TestTopics.create(broker);
        Path log = Files.createDirectories(root.resolve("logs/svc.pipe/r1")).resolve("logs.txt");
        Files.writeString(log, "");
        int a = spawn(broker, catalog, "a");
        int b = spawn(broker, catalog, "b");
        AtomicInteger written = new AtomicInteger();
        Thread appender = new Thread(() -> {
            try (OutputStream out = new FileOutputStream(log.toFile(), true)) {
                for (int i = 0; i < LINES; i++) {
                    out.write(("line " + i + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    written.incrementAndGet();
                    LockSupport.parkNanos(Duration.ofMillis(4).toNanos());
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "appender");
        try (SseClient viewer = open(a, null); SseClient watcherOnB = open(b, null)) {
            appender.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> viewer.text().split("\n").length >= 300);
            processes.get(0).destroyForcibly().waitFor();
            await().atMost(Duration.ofSeconds(10)).until(() -> viewer.ended);
            assertTrue(written.get() < LINES, "the kill happened mid-stream");
            String cursor = viewer.events.stream().filter(e -> e.eventType() == LogStreamEvent.EventType.LOGS)
                    .reduce((x, y) -> y).orElseThrow().after();
            String before = viewer.text();
            try (SseClient resumed = open(b, cursor)) {
                try {
                    await().atMost(Duration.ofSeconds(60)).until(() -> (before + resumed.text()).length()
                            >= lines(0, LINES).length());
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError("resumed from " + cursor + " after " + before.split("\n").length
                            + " lines; got " + resumed.events.size() + " events, truncated "
                            + resumed.events.stream().anyMatch(x -> Boolean.TRUE.equals(x.truncated())) + ", ended "
                            + resumed.ended + ", text starts " + resumed.text().substring(0,
                            Math.min(80, resumed.text().length())).replace("\n", "|") + ", last "
                            + (resumed.events.isEmpty() ? null : resumed.last()), e);
                }
                assertEquals(lines(0, LINES), before + resumed.text(), "every line exactly once, in order");
                assertTrue(resumed.events.stream().noneMatch(e -> Boolean.TRUE.equals(e.truncated())));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> watcherOnB.text().length()
                    >= lines(0, LINES).length());
            assertEquals(lines(0, LINES), watcherOnB.text());
        }
        appender.join();
    }
}
