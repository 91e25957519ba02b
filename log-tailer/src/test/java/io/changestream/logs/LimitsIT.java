package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.EventFrames;
import io.changestream.topics.model.LogStreamEvent;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits over real sockets: the slow-viewer budget (a client that stops reading is cut off with
 * {@code truncated} and the cursor of the last frame it was written, the reading viewer of the same run is not held
 * up, and resuming from the cursor gives the rest exactly) and the per-caller limits (429 naming the setting).
 */
class LimitsIT {

    private static final String STREAM = "/api/v1/services/ingestionPipelines/logs/svc.slow/stream/run-1";

    @TempDir
    Path root;
    private LogTailerServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aStalledViewerIsTruncatedWithItsCursorWhileTheReadingOneGetsEverythingAndTheResumeIsExact()
            throws Exception {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of()));
        Path log = Files.createDirectories(root.resolve("svc.slow").resolve("run-1")).resolve("logs.txt");
        Files.writeString(log, "first line\n");
        try (Socket stalled = new Socket();
             SseClient reading = SseClient.open(http, uri(STREAM), TestConfigs.TOKEN, true)) {
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new InetSocketAddress("127.0.0.1", server.port()));
            stalled.getOutputStream().write(("GET " + STREAM + " HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + TestConfigs.TOKEN + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            await().atMost(Duration.ofSeconds(10)).until(() -> reading.text().equals("first line\n")
                    && server.manager().activeConnections() == 2);
            // 12 MiB more: far past what the kernel buffers plus 64 KiB of stream.maxPendingBytesPerClient hold
            StringBuilder more = new StringBuilder();
            for (int i = 0; i < 12 * 1024; i++) {
                more.append(String.format("%08d ", i)).append("z".repeat(1014)).append('\n');
            }
            Files.writeString(log, more.toString(), java.nio.file.StandardOpenOption.APPEND);
            String whole = "first line\n" + more;
            await().atMost(Duration.ofSeconds(60)).until(() -> reading.text().length() == whole.length());
            assertEquals(whole, reading.text());
            assertEquals(1, server.manager().activeConnections(), "the stalled viewer was cut off");

            List<LogStreamEvent> got = readAll(stalled.getInputStream());
            LogStreamEvent notice = got.get(got.size() - 1);
            assertEquals(Boolean.TRUE, notice.truncated(), notice.toString());
            assertTrue(notice.message().contains("stream.maxPendingBytesPerClient = 65536"), notice.message());
            StringBuilder seen = new StringBuilder();
            got.forEach(e -> seen.append(e.logs() == null ? "" : e.logs()));
            assertTrue(seen.length() < whole.length(), "it fell behind");
            assertEquals(whole.substring(0, seen.length()), seen.toString());
            try (SseClient resumed = SseClient.open(http, uri(STREAM + "?after=" + notice.after()), TestConfigs.TOKEN,
                    true)) {
                String rest = whole.substring(seen.length());
                await().atMost(Duration.ofSeconds(60)).until(() -> resumed.text().length() >= rest.length());
                assertEquals(rest, resumed.text());
            }
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    /** Reads an HTTP/1.0 SSE response to its end (the server closes it) and parses its data frames. */
    private static List<LogStreamEvent> readAll(InputStream in) throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        in.transferTo(body);
        String text = body.toString(StandardCharsets.UTF_8);
        String frames = text.substring(text.indexOf("\r\n\r\n") + 4);
        List<LogStreamEvent> events = new ArrayList<>();
        for (String line : frames.split("\n")) {
            if (line.startsWith("data: ")) {
                events.add(EventFrames.mapper().readValue(line.substring(6), LogStreamEvent.class));
            }
        }
        return events;
    }

    @Test
    void aTokenPastItsRunsOrConnectionsGets429NamingTheSettingAndOtherTokensAreNotHeldUp() throws Exception {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("limits.maxConnectionsPerToken", "3",
                "limits.maxRunsPerToken", "1")));
        Path dir = Files.createDirectories(root.resolve("svc.slow"));
        Files.createDirectories(dir.resolve("run-1"));
        Files.writeString(dir.resolve("run-1").resolve("logs.txt"), "one\n");
        Files.createDirectories(dir.resolve("run-2"));
        Files.writeString(dir.resolve("run-2").resolve("logs.txt"), "two\n");
        String other = STREAM.replace("run-1", "run-2");
        try (SseClient a = SseClient.open(http, uri(STREAM), TestConfigs.TOKEN, true);
             SseClient b = SseClient.open(http, uri(STREAM), TestConfigs.TOKEN, true)) {
            assertEquals(200, a.status);
            assertEquals(200, b.status);
            java.net.http.HttpResponse<String> secondRun = refused(other, TestConfigs.TOKEN);
            assertEquals(429, secondRun.statusCode(), secondRun.body());
            assertTrue(secondRun.body().contains("limits.maxRunsPerToken = 1"), secondRun.body());
            assertEquals("5", secondRun.headers().firstValue("Retry-After").orElse(""));
            try (SseClient c = SseClient.open(http, uri(STREAM), TestConfigs.TOKEN, true);
                 SseClient otherToken = SseClient.open(http, uri(other), "other-token", true)) {
                assertEquals(200, c.status);
                java.net.http.HttpResponse<String> fourth = refused(STREAM, TestConfigs.TOKEN);
                assertEquals(429, fourth.statusCode(), fourth.body());
                assertTrue(fourth.body().contains("limits.maxConnectionsPerToken = 3"), fourth.body());
                assertEquals(200, otherToken.status);
                await().atMost(Duration.ofSeconds(10)).until(() -> otherToken.text().equals("two\n")
                        && c.text().equals("one\n"));
            }
        }
    }

    private java.net.http.HttpResponse<String> refused(String path, String token) throws Exception {
        return http.send(java.net.http.HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token)
                .header("Accept", "text/event-stream").build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }
}
