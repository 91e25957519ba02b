package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.source.S3MockServer;
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
    private LogTailerServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startS3() throws Exception {
        s3mock = S3MockServer.shared();
        writer = S3Client.builder().endpointOverride(s3mock.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s"))).build();
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
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("s3.bucket", S3MockServer.BUCKET,
                "s3.endpoint", s3mock.endpoint().toString(), "s3.pathStyle", "true", "s3.accessKeyId", "k",
                "s3.secretAccessKey", "s")));
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
}
