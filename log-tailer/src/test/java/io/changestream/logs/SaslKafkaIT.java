package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.changestream.logs.engine.LogMetrics.ReplayKind;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.SaslBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Serdes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The log-tailer against a broker that only speaks SASL_PLAINTEXT/PLAIN: the {@code kafka.*} client properties (from
 * the file, the JAAS secret from {@code LOG_TAILER_KAFKA_SASL_JAAS_CONFIG}) reach the Streams app (run-state view and
 * chunk index), the chunk producer and the replay consumer; wrong credentials fail the start with a clear message and
 * no secret in it or in the logs.
 */
class SaslKafkaIT {

    private static final String FQN = "svc.sasl";
    private static final String TOKEN = "t";
    private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();

    private static KafkaBroker broker;
    private static TopicCatalog catalog;

    @TempDir
    Path root;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        LOGS.start();
        root().addAppender(LOGS);
        broker = SaslBroker.start();
        catalog = new TopicCatalog("lt-sasl-" + UUID.randomUUID().toString().substring(0, 8) + ".")
                .withReplicationFactor((short) 1);
        try (Admin admin = Admin.create(SaslBroker.client(broker, SaslBroker.USER, SaslBroker.PASSWORD))) {
            new TopicProvisioner(admin).provision(List.of(catalog.pipelineStatus(), catalog.logChunks()));
        }
    }

    @AfterAll
    static void stop() {
        root().detachAppender(LOGS);
        if (broker != null) {
            broker.close();
        }
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    /** SASL settings in the file, the JAAS line (with the password) from the environment. */
    private LogTailerConfig config(String instance, String password) {
        Properties p = new Properties();
        p.setProperty("http.host", "127.0.0.1");
        p.setProperty("http.port", "0");
        p.setProperty("auth.tokens", TOKEN);
        p.setProperty("storage.root", root.resolve("logs").toString());
        p.setProperty("kafka.bootstrapServers", broker.bootstrapServers());
        p.setProperty("kafka.security.protocol", "SASL_PLAINTEXT");
        p.setProperty("kafka.sasl.mechanism", "PLAIN");
        p.setProperty("kafka.namespace", catalog.namespace());
        p.setProperty("kafka.stateDir", root.resolve("state").toString());
        p.setProperty("kafka.instanceId", instance);
        p.setProperty("kafka.replayIndexWaitMillis", "2000");
        p.setProperty("stream.pollSeconds", "0.05");
        p.setProperty("stream.maxReplayBytes", "4");
        return LogTailerConfig.from(p, Map.of("LOG_TAILER_KAFKA_SASL_JAAS_CONFIG",
                SaslBroker.jaas(SaslBroker.USER, password)));
    }

    private SseClient open(LogTailerServer server, String run, String after) throws Exception {
        return SseClient.open(http, URI.create("http://127.0.0.1:" + server.port()
                + "/api/v1/services/ingestionPipelines/logs/" + FQN + "/stream/" + run
                + (after == null ? "" : "?after=" + after)), TOKEN, false);
    }

    private String newestRun(LogTailerServer server) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/api/v1/services/ingestionPipelines/logs/" + FQN + "/last")).header("Authorization",
                "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return io.changestream.topics.serde.Json.mapper().readTree(r.body()).path("runId").asText();
    }

    @Test
    void statusViewChunksAndReplayWorkOnTheSaslCluster() throws Exception {
        Map<String, Object> sasl = SaslBroker.client(broker, SaslBroker.USER, SaslBroker.PASSWORD);
        PipelineRunStatus running = new PipelineRunStatus(FQN, "r1", PipelineState.RUNNING, 1L, null, 1L);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(sasl, new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(catalog.pipelineStatus().name(), running.key(),
                    Serdes.pipelineRunStatus().toJson(running))).get();
        }
        Path log = Files.createDirectories(root.resolve("logs").resolve(FQN).resolve("r1")).resolve("logs.txt");
        Files.writeString(log, "l1\n");
        // the newest storage directory is r2: only the status view says r1 is the newest run
        Files.writeString(Files.createDirectories(root.resolve("logs").resolve(FQN).resolve("r2"))
                .resolve("logs.txt"), "other\n");
        Files.setLastModifiedTime(root.resolve("logs").resolve(FQN).resolve("r1"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        long started = System.nanoTime();
        try (LogTailerServer a = LogTailerServer.start(config("a", SaslBroker.PASSWORD))) {
            System.out.printf("SaslKafkaIT: views restored over SASL, server up in %d ms%n",
                    Duration.ofNanos(System.nanoTime() - started).toMillis());
            assertEquals("r1", newestRun(a), "the pipeline-status record is in the run-state view");
            String afterFirstLine;
            try (SseClient onA = open(a, "r1", null)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> onA.text().equals("l1\n"));
                afterFirstLine = onA.last().after();
                Files.writeString(log, "l2\nl3\n", StandardOpenOption.APPEND);
                await().atMost(Duration.ofSeconds(10)).until(() -> onA.text().equals("l1\nl2\nl3\n"));
            }
            List<String> chunkKeys = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(sasl),
                    new StringDeserializer(), new StringDeserializer())) {
                List<TopicPartition> parts = consumer.partitionsFor(catalog.logChunks().name()).stream()
                        .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
                consumer.assign(parts);
                consumer.seekToBeginning(parts);
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        chunkKeys.add(r.key());
                    }
                    return chunkKeys.size() >= 2;
                });
            }
            assertTrue(chunkKeys.stream().allMatch(TopicKeys.pipelineRun(FQN, "r1")::equals), chunkKeys.toString());
            // another server resumes after line 1: its memory does not hold that cursor, the topic does
            try (LogTailerServer b = LogTailerServer.start(config("b", SaslBroker.PASSWORD));
                 SseClient onB = open(b, "r1", null)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> onB.text().equals("l1\nl2\nl3\n"));
                try (SseClient resumed = open(b, "r1", afterFirstLine)) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> resumed.text().equals("l2\nl3\n"));
                    assertEquals(1.0, b.manager().metrics().replays(ReplayKind.KAFKA), "replayed from the topic");
                }
            }
        }
        assertNoSecretLogged(SaslBroker.PASSWORD);
    }

    @Test
    void wrongCredentialsFailTheStartLoudlyWithoutTheSecret() {
        String wrong = "wrong-secret-" + UUID.randomUUID();
        LogTailerConfig config = config("bad", wrong);
        assertFalse(config.toString().contains(wrong), config.toString());
        long started = System.nanoTime();
        RuntimeException e = assertThrows(RuntimeException.class, () -> LogTailerServer.start(config).close());
        long ms = Duration.ofNanos(System.nanoTime() - started).toMillis();
        System.out.printf("SaslKafkaIT: wrong credentials refused in %d ms: %s%n", ms, e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("authentication"), e.getMessage());
        assertFalse(e.getMessage().contains(wrong), e.getMessage());
        assertTrue(ms < 30_000, "fails fast, not after the 60 s readiness bound: " + ms + " ms");
        assertNoSecretLogged(wrong);
    }

    private static Map<String, Object> consumerProps(Map<String, Object> sasl) {
        Map<String, Object> props = new HashMap<>(sasl);
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", false);
        return props;
    }

    private static void assertNoSecretLogged(String secret) {
        String logged = LOGS.list.stream().map(e -> e.getFormattedMessage()
                + (e.getThrowableProxy() == null ? "" : e.getThrowableProxy().getMessage()))
                .collect(Collectors.joining("\n"));
        assertFalse(LOGS.list.isEmpty(), "the service logged");
        assertFalse(logged.contains(secret), "a Kafka secret reached the logs");
    }
}
