package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.TailerManager;
import io.changestream.logs.source.AirflowPluginServer;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EventType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoints over real HTTP against a real server on a storage root (no Kafka). */
class LogsApiIT {

    private static final String BASE = "/api/v1/services/ingestionPipelines/logs/";

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

    private void start(Map<String, String> overrides) {
        server = LogTailerServer.start(TestConfigs.config(root, overrides));
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private Path run(String fqn, String runId) throws Exception {
        Path dir = Files.createDirectories(root.resolve(fqn).resolve(runId));
        return dir.resolve("logs.txt");
    }

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(uri(path)).GET();
        if (token != null) {
            req.header("Authorization", "Bearer " + token);
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void noRouteAnswers5xxForAClientsMistake() throws Exception {
        start(Map.of());
        append(run("svc.pipe", "r1"), "a\n");
        String longName = "x".repeat(600);
        List<String> paths = List.of("/api/v1/services/ingestionPipelines/logs/", BASE + "svc.pipe",
                BASE + "svc.pipe/unknown", BASE + "svc.pipe/stream", BASE + "svc.pipe/stream/", BASE + "../x/last",
                BASE + "svc.pipe/stream/..", BASE + "svc.pipe/stream/a%5Cb", BASE + "svc.pipe/stream/a%00b",
                BASE + longName + "/last", BASE + "svc.pipe/last?runId=" + longName, BASE + "svc.pipe/last?runId=..",
                BASE + "svc.pipe/last?runId=r1&after=-5", BASE + "svc.pipe/last?runId=r1&after=x%00y",
                BASE + "svc.pipe/last?runId=r1&after=" + "1".repeat(80), BASE + "svc.pipe/last/download?runId=%2e%2e",
                BASE + "svc.pipe/last/download?runId=nope", BASE + "nope.pipe/last", BASE + "svc.pipe/runs?limit=abc",
                BASE + "svc.pipe/runs?limit=100000", BASE + "svc.pipe/runs?limit=-1", BASE + "..%2F..%2Fetc/runs",
                "/health/live?x=%25zz", "/ui/logs.html?fqn=%00", "/nope", "/metrics/x");
        for (String path : paths) {
            for (String token : new String[] {TestConfigs.TOKEN, null, "wrong"}) {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.port() + path)).header("Authorization", token == null ? "Basic eDp5" : "Bearer "
                        + token).GET().build(), HttpResponse.BodyHandlers.ofString());
                assertTrue(answer.statusCode() < 500, path + " (token " + token + ") -> " + answer.statusCode() + " "
                        + answer.body());
            }
        }
    }

    @Test
    void missingOrWrongTokenIs401BeforeTheStreamOpens() throws Exception {
        start(Map.of());
        run("svc.pipe", "r1");
        for (String path : new String[] {"svc.pipe/stream/r1", "svc.pipe/last?runId=r1", "svc.pipe/last/download"}) {
            assertEquals(401, get(BASE + path, null).statusCode(), path);
            HttpResponse<String> wrong = get(BASE + path, "nope");
            assertEquals(401, wrong.statusCode(), path);
            assertEquals("Bearer", wrong.headers().firstValue("WWW-Authenticate").orElse(""));
        }
    }

    @Test
    void unknownPipelineIs404AndUnsafeNamesAre400() throws Exception {
        start(Map.of());
        assertEquals(404, get(BASE + "nobody/stream/r1", TestConfigs.TOKEN).statusCode());
        HttpResponse<String> dots = get(BASE + "a..b/stream/r1", TestConfigs.TOKEN);
        assertEquals(400, dots.statusCode(), dots.body());
        assertEquals(400, get(BASE + "svc.pipe/stream/bad%01run", TestConfigs.TOKEN).statusCode());
        assertEquals(400, get(BASE + "svc.pipe/stream/..x", TestConfigs.TOKEN).statusCode());
        // a bare ".." segment is resolved away by URI normalization before routing: never a stream
        assertEquals(404, get(BASE + "svc.pipe/stream/..", TestConfigs.TOKEN).statusCode());
    }

    @Test
    void streamIsCommittedAtOnceAndDeliversAppendedLinesWithoutAcceptHeader() throws Exception {
        start(Map.of());
        Path log = run("svc.pipe", "r1");
        try (SseClient client = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1?after=0"), "other-token",
                false)) {
            assertEquals(200, client.status);
            assertTrue(client.contentType.startsWith("text/event-stream"), client.contentType);
            append(log, "first\nsecond\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> client.text().equals("first\nsecond\n"));
            append(log, "third\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> client.text().endsWith("third\n"));
            assertTrue(client.events.stream().allMatch(e -> e.eventType() == EventType.LOGS
                    && "r1".equals(e.runId()) && e.after() != null));
            assertEquals("3", client.last().after());
        }
    }

    @Test
    void anAppendReachesViewersAtOnceWithoutWaitingForThePoll() throws Exception {
        start(Map.of("stream.pollSeconds", "60"));
        Path log = run("svc.pipe", "r1");
        try (SseClient client = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN, true)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> server.manager().metrics().polls() >= 1);
            append(log, "now\n");
            // well inside the 60 s poll interval: only the change watch can have woken the tailer
            await().atMost(Duration.ofSeconds(15)).until(() -> client.text().equals("now\n"));
        }
    }

    @Test
    void aRunNotInStorageIsStreamedFromTheAirflowPlugin() throws Exception {
        try (AirflowPluginServer airflow = new AirflowPluginServer()) {
            start(Map.of("airflow.url", airflow.base().toString(), "airflow.username", AirflowPluginServer.USER,
                    "airflow.password", AirflowPluginServer.PASSWORD));
            Path stored = run("svc.pipe", "r1");
            append(stored, "from storage\n");
            airflow.append("pipe", "ingestion_task", "from airflow\n");
            try (SseClient fromAirflow = SseClient.open(http, uri(BASE + "svc.pipe/stream/scheduled__1"),
                    TestConfigs.TOKEN, true);
                 SseClient fromStorage = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN,
                         true)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> fromAirflow.text().equals("from airflow\n"));
                assertEquals("0:13", fromAirflow.last().after());
                await().atMost(Duration.ofSeconds(10)).until(() -> fromStorage.text().equals("from storage\n"));
                airflow.append("pipe", "ingestion_task", "more\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> fromAirflow.text().endsWith("airflow\nmore\n"));
            }
        }
    }

    @Test
    void browserStyleRequestAndPipelineGivenByIdAndResumeFromCursor() throws Exception {
        start(Map.of("pipelines.ids", "0b9f5c6e-1111-2222-3333-444455556666=svc.pipe"));
        Path log = run("svc.pipe", "scheduled__2026-11-29T09:00:00+00:00");
        append(log, "a\nb\nc\n");
        try (SseClient client = SseClient.open(http, uri(BASE
                + "0b9f5c6e-1111-2222-3333-444455556666/stream/scheduled__2026-11-29T09:00:00%2B00:00?after=1"),
                TestConfigs.TOKEN, true)) {
            assertEquals(200, client.status);
            await().atMost(Duration.ofSeconds(10)).until(() -> client.text().equals("b\nc\n"));
        }
    }

    @Test
    void heartbeatCommentsArriveOnAQuietStream() throws Exception {
        start(Map.of("stream.heartbeatSeconds", "1"));
        run("svc.pipe", "r1");
        try (SseClient client = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN, true)) {
            await().atMost(Duration.ofSeconds(15)).until(() -> client.comments.size() >= 2);
            assertEquals(": heartbeat", client.comments.get(0));
        }
    }

    @Test
    void pastTheCapsTheStreamIsAnErrorEventThenClosed() throws Exception {
        start(Map.of("stream.maxActiveConnections", "2", "stream.maxActiveRuns", "1"));
        run("svc.pipe", "r1");
        run("svc.pipe", "r2");
        try (SseClient first = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN, true)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> server.manager().activeRuns() == 1);
            try (SseClient otherRun = SseClient.open(http, uri(BASE + "svc.pipe/stream/r2"), TestConfigs.TOKEN,
                    true)) {
                await().atMost(Duration.ofSeconds(5)).until(() -> otherRun.ended);
                assertEquals(200, otherRun.status);
                assertEquals(EventType.ERROR, otherRun.last().eventType());
                assertEquals(TailerManager.TOO_MANY_RUNS, otherRun.last().message());
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.manager().activeConnections() == 1);
            try (SseClient second = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN, true);
                 SseClient third = SseClient.open(http, uri(BASE + "svc.pipe/stream/r1"), TestConfigs.TOKEN, true)) {
                await().atMost(Duration.ofSeconds(5)).until(() -> third.ended);
                LogStreamEvent refused = third.last();
                assertEquals(EventType.ERROR, refused.eventType());
                assertEquals(TailerManager.TOO_MANY_CONNECTIONS, refused.message());
                assertTrue(!second.ended);
            }
        }
    }

    @Test
    void knownPipelineWithoutAnyBackendForTheRunGetsAnErrorEvent() throws Exception {
        start(Map.of("pipelines.known", "configured.pipe"));
        try (SseClient client = SseClient.open(http, uri(BASE + "configured.pipe/stream/r9"), TestConfigs.TOKEN,
                false)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> client.ended);
            assertEquals(200, client.status);
            assertEquals(EventType.ERROR, client.last().eventType());
            assertTrue(client.last().message().startsWith("No log backend"), client.last().message());
        }
    }

    @Test
    void lastPagesAndDownloadStreamsTheWholeRun() throws Exception {
        start(Map.of("stream.linesPerRead", "2"));
        Path log = run("svc.pipe", "r1");
        append(log, "1\n2\n3\n4\n5\n");
        HttpResponse<String> page = get(BASE + "svc.pipe/last?runId=r1&after=1", TestConfigs.TOKEN);
        assertEquals(200, page.statusCode());
        assertEquals("{\"runId\":\"r1\",\"logs\":\"2\\n3\\n\",\"after\":\"3\",\"more\":true,\"truncated\":false}",
                page.body());
        HttpResponse<String> latest = get(BASE + "svc.pipe/last", TestConfigs.TOKEN);
        assertTrue(latest.body().contains("\"runId\":\"r1\""), latest.body());
        HttpResponse<String> download = get(BASE + "svc.pipe/last/download?runId=r1", TestConfigs.TOKEN);
        assertEquals(200, download.statusCode());
        assertEquals("1\n2\n3\n4\n5\n", download.body());
    }

    @Test
    void healthAndMetricsDescribeEveryMeter() throws Exception {
        start(Map.of());
        assertEquals(200, get("/health/live", null).statusCode());
        assertEquals(200, get("/health/ready", null).statusCode());
        String metrics = get("/metrics", null).body();
        for (String name : new String[] {"logtailer_active_runs", "logtailer_active_connections",
            "logtailer_sent_bytes_total", "logtailer_refusals_total", "logtailer_replays_total",
            "logtailer_dropped_viewers_total"}) {
            assertTrue(metrics.contains("# HELP " + name + " "), name);
        }
        metrics.lines().filter(l -> l.startsWith("# HELP ")).forEach(l ->
                assertTrue(l.split(" ", 4).length == 4 && !l.split(" ", 4)[3].isBlank(), l));
        // promtool (Debian's prometheus package, installed by ops/test) rejects missing HELP text and bad names
        Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        promtool.getOutputStream().write(metrics.getBytes(StandardCharsets.UTF_8));
        promtool.getOutputStream().close();
        String verdict = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, promtool.waitFor(), verdict);
    }

    @Test
    void aViewerThatStopsReadingIsCutOffWithTruncatedAtItsPendingLimitAndItsConnectionEnds() throws Exception {
        start(Map.of("stream.maxPendingBytesPerClient", "65536", "stream.maxStreamBytes", "104857600",
                "http.idleTimeoutSeconds", "600"));
        Path log = run("svc.pipe", "r1");
        try (java.net.Socket stalled = new java.net.Socket()) {
            // a small receive buffer set before the handshake (after it, the window scale is already agreed)
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            stalled.getOutputStream().write(("GET " + BASE + "svc.pipe/stream/r1 HTTP/1.1\r\nHost: x\r\n"
                    + "Authorization: Bearer " + TestConfigs.TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            await().atMost(Duration.ofSeconds(5)).until(() -> server.manager().activeConnections() == 1);
            String line = "x".repeat(1000) + "\n";
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                append(log, line.repeat(1000));
                return server.manager().metrics().droppedViewers() == 1;
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> server.manager().activeConnections() == 0);
            // once it reads again it gets what was on the wire, the notice, and the end of the connection
            // (not kept alive, although the idle timeout is 600 s here)
            stalled.setSoTimeout(10_000);
            String tail = readToTheEnd(stalled.getInputStream());
            assertTrue(tail.contains("\"truncated\":true") && tail.contains("stream.maxPendingBytesPerClient = 65536"),
                    tail);
        }
    }

    /** The last few KiB before the server closed the connection; fails on a read timeout. */
    private static String readToTheEnd(java.io.InputStream in) throws java.io.IOException {
        byte[] buffer = new byte[65536];
        StringBuilder tail = new StringBuilder();
        int n;
        while ((n = in.read(buffer)) >= 0) {
            tail.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            if (tail.length() > 8192) {
                tail.delete(0, tail.length() - 8192);
            }
        }
        return tail.toString();
    }
}
