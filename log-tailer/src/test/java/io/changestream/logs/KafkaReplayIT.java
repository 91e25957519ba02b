package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.LogMetrics.ReplayKind;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Serdes;
import org.apache.kafka.clients.producer.ProducerRecord;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact resume on another server from the log-chunks topic, and from the backend when the topic lost the range: two
 * real servers over one storage root and a real broker.
 */
class KafkaReplayIT {

    private static final String STREAM = "/api/v1/services/ingestionPipelines/logs/svc.pipe/stream/r1";

    @TempDir
    Path root;
    private final HttpClient http = HttpClient.newHttpClient();

    private LogTailerConfig config(KafkaBroker broker, TopicCatalog catalog, String instance) {
        Properties p = new Properties();
        p.setProperty("http.host", "127.0.0.1");
        p.setProperty("http.port", "0");
        p.setProperty("auth.tokens", "t");
        p.setProperty("storage.root", root.resolve("logs").toString());
        p.setProperty("kafka.bootstrapServers", broker.bootstrapServers());
        p.setProperty("kafka.namespace", catalog.namespace());
        p.setProperty("kafka.stateDir", root.resolve("state").toString());
        p.setProperty("kafka.instanceId", instance);
        p.setProperty("kafka.replayIndexWaitMillis", "500");
        p.setProperty("stream.pollSeconds", "0.05");
        p.setProperty("stream.maxReplayBytes", "4");
        return LogTailerConfig.from(p, Map.of());
    }

    private SseClient open(LogTailerServer server, String after) throws Exception {
        return SseClient.open(http, URI.create("http://127.0.0.1:" + server.port() + STREAM
                + (after == null ? "" : "?after=" + after)), "t", false);
    }

    private static String cursor(SseClient client) {
        return client.last().after();
    }

    @Test
    void cursorFromAnotherServerIsReplayedExactlyFromTheTopicOrElseFromTheBackend() throws Exception {
        KafkaBroker broker = Brokers.shared();
        TopicCatalog catalog = TestTopics.create(broker);
        Path log = Files.createDirectories(root.resolve("logs/svc.pipe/r1")).resolve("logs.txt");
        try (LogTailerServer a = LogTailerServer.start(config(broker, catalog, "a"));
             LogTailerServer b = LogTailerServer.start(config(broker, catalog, "b"));
             SseClient onA = open(a, null)) {
            Map<Integer, String> cursorAfterLine = new HashMap<>();
            for (int i = 1; i <= 6; i++) {
                Files.writeString(log, "l" + i + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                int line = i;
                await().atMost(Duration.ofSeconds(10)).until(() -> onA.text().endsWith("l" + line + "\n"));
                cursorAfterLine.put(i, cursor(onA));
            }
            // B tails the same run from the start: one chunk 0→6, its buffer does not hold A's per-line cursors
            try (SseClient onB = open(b, null)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> onB.text().equals("l1\nl2\nl3\nl4\nl5\nl6\n"));
                try (SseClient resumed = open(b, cursorAfterLine.get(2))) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> resumed.text().equals("l3\nl4\nl5\nl6\n"));
                    assertTrue(resumed.events.stream().noneMatch(e -> Boolean.TRUE.equals(e.truncated())));
                    assertTrue(resumed.events.stream().allMatch(e -> Boolean.TRUE.equals(e.replay())));
                    Files.writeString(log, "l7\n", StandardOpenOption.APPEND);
                    await().atMost(Duration.ofSeconds(10)).until(() -> resumed.text().endsWith("l6\nl7\n"));
                    assertEquals(1.0, b.manager().metrics().replays(ReplayKind.KAFKA));
                }
                deleteAllRecords(broker, catalog.logChunks().name());
                try (SseClient expired = open(b, cursorAfterLine.get(3))) {
                    // the topic lost the range: the viewer gets its own reader of the backend from its cursor
                    await().atMost(Duration.ofSeconds(10)).until(() -> expired.text().equals("l4\nl5\nl6\nl7\n"));
                    assertTrue(expired.events.stream().noneMatch(e -> Boolean.TRUE.equals(e.truncated())));
                    assertEquals(1.0, b.manager().metrics().replays(ReplayKind.SOURCE));
                    assertEquals(0.0, b.manager().metrics().replays(ReplayKind.TRUNCATED));
                    Files.writeString(log, "l8\n", StandardOpenOption.APPEND);
                    await().atMost(Duration.ofSeconds(10)).until(() -> expired.text().endsWith("l7\nl8\n")
                            && onB.text().endsWith("l7\nl8\n"));
                }
            }
        }
    }

    @Test
    void pagingWithoutRunIdFallsBackWhenTheStatusViewsNewestRunIdIsUnsafe() throws Exception {
        KafkaBroker broker = Brokers.shared();
        TopicCatalog catalog = TestTopics.create(broker);
        Path stored = Files.createDirectories(root.resolve("logs/svc.pipe/r-stored")).resolve("logs.txt");
        Files.writeString(stored, "stored line\n");
        long now = System.currentTimeMillis();
        PipelineRunStatus bad = new PipelineRunStatus("svc.pipe", "..\\..\\secrets", PipelineState.RUNNING, now,
                null, now);
        PipelineRunStatus marker = new PipelineRunStatus("svc.other", "r-ok", PipelineState.RUNNING, now, null, now);
        // one partition, bad record first: once the marker is visible, so is the bad run id
        KafkaTestClients.produce(broker, List.of(
                new ProducerRecord<>(catalog.pipelineStatus().name(), 0, bad.key(),
                        Serdes.pipelineRunStatus().toJson(bad)),
                new ProducerRecord<>(catalog.pipelineStatus().name(), 0, marker.key(),
                        Serdes.pipelineRunStatus().toJson(marker))));
        try (LogTailerServer server = LogTailerServer.start(config(broker, catalog, "a"))) {
            String base = "http://127.0.0.1:" + server.port() + "/api/v1/services/ingestionPipelines/logs/svc.pipe";
            java.net.http.HttpRequest.Builder get = java.net.http.HttpRequest.newBuilder().header("Authorization",
                    "Bearer t");
            await().atMost(Duration.ofSeconds(20)).until(() -> http.send(get.uri(URI.create(base.replace("svc.pipe",
                    "svc.other") + "/runs")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body()
                    .contains("r-ok"));
            for (String path : List.of("/last", "/last/download", "/runs")) {
                java.net.http.HttpResponse<String> answer = http.send(get.uri(URI.create(base + path)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertEquals(200, answer.statusCode(), path + ": " + answer.body());
                assertTrue(answer.body().contains("stored line") || path.equals("/runs"), answer.body());
                assertTrue(!answer.body().contains("secrets"), answer.body());
            }
        }
    }

    private static void deleteAllRecords(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, info) ->
                    delete.put(tp, RecordsToDelete.beforeOffset(info.offset())));
            admin.deleteRecords(delete).all().get(30, TimeUnit.SECONDS);
        }
    }
}
