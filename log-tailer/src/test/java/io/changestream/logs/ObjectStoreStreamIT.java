package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.source.ObjectStoreSettings;
import io.changestream.logs.source.PlatformLogWriter;
import io.changestream.logs.source.S3MockServer;
import io.changestream.topics.model.LogStreamEvent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/** The log endpoints over the object-storage backend: a real server, the real SDK, S3Mock as the S3 server. */
class ObjectStoreStreamIT {

    private static final String BASE = "/api/v1/services/ingestionPipelines/logs/";

    @TempDir
    Path root;
    private static S3MockServer s3mock;
    private static S3Client writer;
    private static ObjectStoreSettings layout;
    private LogTailerServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startS3() throws Exception {
        s3mock = S3MockServer.shared();
        writer = S3Client.builder().endpointOverride(s3mock.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s"))).build();
        layout = new ObjectStoreSettings(s3mock.endpoint(), "us-east-1", S3MockServer.BUCKET, "pipeline-logs", true,
                "k", "s", Duration.ofSeconds(5));
    }

    @AfterAll
    static void stopS3() {
        if (writer != null) {
            writer.close();
        }
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start() {
        server = LogTailerServer.start(config());
    }

    private LogTailerConfig config() {
        return TestConfigs.config(root, Map.of("s3.bucket", S3MockServer.BUCKET,
                "s3.endpoint", s3mock.endpoint().toString(), "s3.pathStyle", "true", "s3.accessKeyId", "k",
                "s3.secretAccessKey", "s"));
    }

    private static void flush(String fqn, String run, String content) {
        writer.putObject(b -> b.bucket(S3MockServer.BUCKET).key("pipeline-logs/" + fqn.replaceAll("[^a-zA-Z0-9_-]",
                "_") + "/" + run + "/logs.txt"), RequestBody.fromString(content));
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + TestConfigs.TOKEN)
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aGrowingObjectReachesTwoViewersThroughOneReaderExactlyOnce() throws Exception {
        start();
        flush("mysql.ingest", "run-1", "one\n");
        try (SseClient a = SseClient.open(http, uri(BASE + "mysql.ingest/stream/run-1"), TestConfigs.TOKEN, true);
             SseClient b = SseClient.open(http, uri(BASE + "mysql.ingest/stream/run-1"), TestConfigs.TOKEN, true)) {
            await().atMost(Duration.ofSeconds(15)).until(() -> a.text().equals("one\n") && b.text().equals("one\n"));
            assertEquals(1, server.manager().activeRuns());
            flush("mysql.ingest", "run-1", "one\ntwo\nthr");
            flush("mysql.ingest", "run-1", "one\ntwo\nthree\n");
            await().atMost(Duration.ofSeconds(15)).until(() -> a.text().equals("one\ntwo\nthree\n")
                    && b.text().equals("one\ntwo\nthree\n"));
            assertEquals("14", a.last().after());
        }
        try (SseClient resumed = SseClient.open(http, uri(BASE + "mysql.ingest/stream/run-1?after=4"),
                TestConfigs.TOKEN, true)) {
            await().atMost(Duration.ofSeconds(15)).until(() -> resumed.text().equals("two\nthree\n"));
        }
    }

    @Test
    void pagingRunsListMissingRunsAndTraversalAreClientAnswers() throws Exception {
        start();
        flush("svc.paged", "older", "old\n");
        Thread.sleep(1100); // S3 LastModified has one-second resolution
        flush("svc.paged", "newer", "new\n");
        HttpResponse<String> runs = get(BASE + "svc.paged/runs");
        assertEquals(200, runs.statusCode(), runs.body());
        assertTrue(runs.body().indexOf("\"newer\"") < runs.body().indexOf("\"older\""), runs.body());
        HttpResponse<String> last = get(BASE + "svc.paged/last");
        assertEquals(200, last.statusCode(), last.body());
        assertTrue(last.body().contains("\"runId\":\"newer\"") && last.body().contains("\"logs\":\"new\\n\""),
                last.body());
        assertEquals("old\n", get(BASE + "svc.paged/last/download?runId=older").body());
        HttpResponse<String> missing = get(BASE + "svc.paged/last?runId=never");
        assertEquals(404, missing.statusCode(), missing.body());
        for (String bad : new String[] {"svc.paged/last?runId=..", "..%2Fetc/last", "svc.paged/stream/a%2F..%2Fb",
                "svc.paged/runs?limit=0", "svc.paged/last?runId=x&after=" + "9".repeat(100)}) {
            HttpResponse<String> answer = get(BASE + bad);
            assertTrue(answer.statusCode() == 400 || answer.statusCode() == 404, bad + " -> " + answer.statusCode()
                    + " " + answer.body());
        }
    }

    @Test
    void aLiveRunIsTailedFromPartialAndHandedOverToLogsAtTheSameOffsetExactlyOnce() throws Exception {
        start();
        String stream = BASE + "svc.live/stream/run-live";
        PlatformLogWriter run = new PlatformLogWriter(writer, layout, "svc.live", "run-live", 100);
        run.line("line 0 of the live run");
        run.flush();
        try (run; SseClient fromStart = SseClient.open(http, uri(stream), TestConfigs.TOKEN, true)) {
            for (int i = 1; i < 40; i++) {
                run.line("line " + i + " of the live run");
            }
            run.flush();
            await().atMost(Duration.ofSeconds(15)).until(() -> fromStart.text().equals(run.content()));
            HttpResponse<String> live = get(BASE + "svc.live/runs");
            assertTrue(live.body().contains("{\"runId\":\"run-live\",") && live.body().contains("\"live\":true"),
                    live.body());
            try (SseClient midRun = SseClient.open(http, uri(stream), TestConfigs.TOKEN, true)) {
                for (int i = 40; i < 80; i++) {
                    run.line("line " + i + " of the live run");
                }
                run.flush();
                run.stopFlushing();
                // the last lines are written after the last flush: only logs.txt holds them
                for (int i = 80; i < 100; i++) {
                    run.line("line " + i + ", after the last flush");
                }
                run.close();
                String whole = run.content();
                await().atMost(Duration.ofSeconds(15)).until(() -> fromStart.text().equals(whole)
                        && midRun.text().equals(whole));
                assertEquals(Integer.toString(whole.length()), fromStart.last().after());
                assertEquals(Integer.toString(whole.length()), midRun.last().after());
            }
            HttpResponse<String> closed = get(BASE + "svc.live/runs");
            assertTrue(closed.body().contains("\"live\":false") && !closed.body().contains("\"live\":true"),
                    closed.body());
            assertEquals(run.content(), get(BASE + "svc.live/last/download?runId=run-live").body());
        }
    }

    @Test
    void aViewerThatLeftWhileTheRunWasLiveResumesAcrossTheSwitchWithNothingLostOrRepeated() throws Exception {
        start();
        String stream = BASE + "svc.resume/stream/run-switch";
        String cursor;
        try (PlatformLogWriter run = new PlatformLogWriter(writer, layout, "svc.resume", "run-switch", 100)) {
            for (int i = 0; i < 30; i++) {
                run.line("before the switch " + i);
            }
            run.flush();
            String seen;
            try (SseClient viewer = SseClient.open(http, uri(stream), TestConfigs.TOKEN, true)) {
                await().atMost(Duration.ofSeconds(15)).until(() -> viewer.text().equals(run.content()));
                seen = viewer.text();
                LogStreamEvent last = viewer.last();
                cursor = last.after();
            }
            for (int i = 0; i < 30; i++) {
                run.line("after the switch " + i);
            }
            run.close();
            // on another server (no replay topic here): a reader of its own starts at the cursor, on logs.txt now
            try (LogTailerServer other = LogTailerServer.start(config());
                 SseClient resumed = SseClient.open(http, URI.create("http://127.0.0.1:" + other.port() + stream
                         + "?after=" + cursor), TestConfigs.TOKEN, true)) {
                String rest = run.content().substring(seen.length());
                await().atMost(Duration.ofSeconds(15)).until(() -> resumed.text().equals(rest));
                assertEquals(Integer.toString(run.content().length()), resumed.last().after());
            }
        }
    }

    @Test
    void aRunThatHasNotFlushedYetIsWaitedForThenFollowedFromPartial() throws Exception {
        start();
        flush("svc.early", "run-before", "an older, closed run\n");
        try (SseClient early = SseClient.open(http, uri(BASE + "svc.early/stream/run-early"), TestConfigs.TOKEN,
                true);
             PlatformLogWriter run = new PlatformLogWriter(writer, layout, "svc.early", "run-early", 50)) {
            assertEquals(200, early.status);
            run.line("first flush");
            run.flush();
            await().atMost(Duration.ofSeconds(15)).until(() -> early.text().equals("first flush\n"));
            run.line("second flush");
            await().atMost(Duration.ofSeconds(15)).until(() -> early.text().equals("first flush\nsecond flush\n"));
        }
    }
}
