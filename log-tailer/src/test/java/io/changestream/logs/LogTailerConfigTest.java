package io.changestream.logs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.StreamSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LogTailerConfigTest {

    private static Properties minimal() {
        Properties p = new Properties();
        p.setProperty("auth.tokens", "a, b");
        p.setProperty("storage.root", "/var/lib/logs");
        return p;
    }

    @Test
    void defaultsAreThePlatformsAndTheTokensAreSplit() {
        LogTailerConfig config = LogTailerConfig.from(minimal(), Map.of());
        assertEquals(StreamSettings.defaults(), config.stream());
        assertEquals(java.util.List.of("a", "b"), config.authTokens());
        assertEquals(4096, config.acceptQueue());
        assertFalse(config.kafkaEnabled());
        assertEquals(8, StreamSettings.defaults().pollThreads());
        assertEquals(2, StreamSettings.defaults().withCaps(10, 10).pollThreads());
        assertEquals(16, StreamSettings.defaults().withCaps(5000, 10).pollThreads());
    }

    @Test
    void environmentOverridesTheFileAndPollSecondsTakesDecimals() {
        Properties p = minimal();
        p.setProperty("stream.maxActiveRuns", "5");
        LogTailerConfig config = LogTailerConfig.from(p, Map.of("LOG_TAILER_STREAM_MAXACTIVERUNS", "7",
                "LOG_TAILER_STREAM_POLLSECONDS", "0.25", "LOG_TAILER_KAFKA_BOOTSTRAPSERVERS", "k:9092",
                "LOG_TAILER_PIPELINES_IDS", "id-1=svc.a"));
        assertEquals(7, config.stream().maxActiveRuns());
        assertEquals(Duration.ofMillis(250), config.stream().poll());
        assertTrue(config.kafkaEnabled());
        assertEquals(Map.of("id-1", "svc.a"), config.pipelineIds());
    }

    @Test
    void theEnvironmentNamesASettingWithOrWithoutHumpsAndASystemPropertyWins() {
        String property = "log.tailer.http.port";
        System.setProperty(property, "9292");
        try {
            LogTailerConfig config = LogTailerConfig.from(minimal(), Map.of("LOG_TAILER_HTTP_PORT", "9191",
                    "LOG_TAILER_STREAM_MAX_ACTIVE_RUNS", "11", "LOG_TAILER_KAFKA_BOOTSTRAP_SERVERS", "k:9092"));
            assertEquals(9292, config.httpPort(), "system property over environment");
            assertEquals(11, config.stream().maxActiveRuns());
            assertEquals("k:9092", config.kafkaBootstrap());
            assertEquals(Map.of(), config.kafkaClient(), "a declared kafka.* setting is no client property");
        } finally {
            System.clearProperty(property);
        }
    }

    @Test
    void theRecordsDefaultsAreTheDeclaredOnes() {
        StreamSettings stream = StreamSettings.defaults();
        assertEquals(StreamSettings.POLL.defaultOrFail(), stream.poll());
        assertEquals(StreamSettings.MAX_ACTIVE_RUNS.defaultOrFail(), stream.maxActiveRuns());
        assertEquals(io.changestream.logs.source.ReadLimits.AIRFLOW_MAX_ACTIVE_RUNS.defaultOrFail(),
                io.changestream.logs.source.ReadLimits.airflowDefaults().maxActiveRuns());
        io.changestream.logs.limits.CallerLimits limits = io.changestream.logs.limits.CallerLimits.defaults();
        assertEquals(stream.maxActiveConnections(), limits.maxConnectionsPerAddress(), "per address: the server's cap");
        assertEquals(stream.maxActiveRuns(), limits.maxRunsPerAddress(), "per address: the server's cap");
    }

    @Test
    void invalidValuesNameTheSetting() {
        Properties p = minimal();
        p.setProperty("stream.maxReplayBytes", "0");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(p, Map.of()))
                .getMessage().contains("stream.maxReplayBytes"));
        Properties q = minimal();
        q.setProperty("http.port", "eighty");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(q, Map.of()))
                .getMessage().contains("http.port"));
        Properties noToken = minimal();
        noToken.remove("auth.tokens");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(noToken, Map.of()))
                .getMessage().contains("auth.tokens"));
        Properties noBackend = minimal();
        noBackend.remove("storage.root");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(noBackend, Map.of()))
                .getMessage().contains("storage.root"));
    }

    @Test
    void theExampleConfigLoads() throws Exception {
        LogTailerConfig config = LogTailerConfig.load(java.nio.file.Path.of("log-tailer.example.properties"));
        assertEquals(8590, config.httpPort());
        assertTrue(config.kafkaEnabled());
        assertTrue(config.watchStorage());
    }

    @Test
    void kafkaClientPropertiesPassThroughFromFileAndEnvironmentMasked() {
        Properties p = minimal();
        p.setProperty("auth.tokens", "viewer-token-1");
        p.setProperty("kafka.bootstrap.servers", "k:9092");
        p.setProperty("kafka.namespace", "x.");
        p.setProperty("kafka.replayThreads", "3");
        p.setProperty("kafka.security.protocol", "SASL_PLAINTEXT");
        p.setProperty("kafka.sasl.mechanism", "SCRAM-SHA-512");
        LogTailerConfig config = LogTailerConfig.from(p, Map.of("LOG_TAILER_KAFKA_SASL_MECHANISM", "PLAIN",
                "LOG_TAILER_KAFKA_SASL_JAAS_CONFIG", "PlainLoginModule required password=\"jaas-pw-1\";",
                "LOG_TAILER_KAFKA_SSL_KEY_PASSWORD", "key-pw-2", "LOG_TAILER_KAFKA_REPLAYQUEUE", "9"));
        assertEquals("k:9092", config.kafkaBootstrap(), "kafka.bootstrap.servers is an alias");
        assertEquals(9, config.replayQueue());
        assertEquals(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "PlainLoginModule required password=\"jaas-pw-1\";",
                "ssl.key.password", "key-pw-2"), config.kafkaClient(), "the environment wins; own settings excluded");
        assertEquals("k:9092", config.kafkaClientProperties().get("bootstrap.servers"));
        String printed = config.toString();
        assertFalse(printed.contains("jaas-pw-1") || printed.contains("key-pw-2") || printed.contains("viewer-token-1"),
                printed);
        assertTrue(printed.contains("security.protocol=SASL_PLAINTEXT"), printed);
    }

    @Test
    void objectStoreAndAirflowSettingsAreReadValidatedAndTheirSecretsMasked() {
        Properties p = minimal();
        p.setProperty("s3.bucket", "openmetadata-logs");
        p.setProperty("s3.endpoint", "http://minio:9000");
        p.setProperty("s3.pathStyle", "true");
        p.setProperty("s3.accessKeyId", "AKIAEXAMPLE");
        p.setProperty("s3.secretAccessKey", "s3-secret-1");
        p.setProperty("airflow.url", "http://airflow:8080");
        p.setProperty("airflow.username", "admin");
        p.setProperty("airflow.password", "airflow-pw-2");
        LogTailerConfig config = LogTailerConfig.from(p, Map.of("LOG_TAILER_S3_PREFIX", "logs/"));
        assertEquals("logs", config.objectStore().prefix());
        assertEquals("logs/svc_a_b/r1/logs.txt", config.objectStore().key("svc.a b", "r1"));
        assertEquals("api/v1/openmetadata", config.airflow().apiPath());
        assertEquals("ingestion_task", config.airflow().taskId());
        String printed = config.toString();
        assertFalse(printed.contains("s3-secret-1") || printed.contains("airflow-pw-2"), printed);
        assertTrue(printed.contains("AKIAEXAMPLE") && printed.contains("http://minio:9000"), printed);
        Properties half = minimal();
        half.setProperty("s3.bucket", "openmetadata-logs");
        half.setProperty("s3.accessKeyId", "AKIAEXAMPLE");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(half, Map.of()))
                .getMessage().contains("s3.secretAccessKey"));
        Properties badBucket = minimal();
        badBucket.setProperty("s3.bucket", "Not_A_Bucket");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(badBucket, Map.of()))
                .getMessage().contains("s3.bucket"));
        Properties both = minimal();
        both.setProperty("airflow.url", "http://airflow:8080");
        both.setProperty("airflow.token", "t");
        both.setProperty("airflow.username", "u");
        both.setProperty("airflow.password", "p");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(both, Map.of()))
                .getMessage().contains("airflow.token"));
    }

    @Test
    void aMisspeltKafkaSettingIsRefusedNamingIt() {
        Properties p = minimal();
        p.setProperty("kafka.replayThread", "3");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LogTailerConfig.from(p, Map.of()));
        assertTrue(e.getMessage().contains("kafka.replayThread"), e.getMessage());
    }

    @Test
    void theLimitsPerCallerBackendAndViewerAreReadWithTheirDefaultsAndNamedWhenInvalid() {
        LogTailerConfig defaults = LogTailerConfig.from(minimal(), Map.of());
        assertEquals(io.changestream.logs.limits.CallerLimits.defaults(), defaults.callerLimits());
        assertEquals(io.changestream.logs.source.ReadLimits.s3Defaults(), defaults.s3Limits());
        assertEquals(io.changestream.logs.source.ReadLimits.airflowDefaults(), defaults.airflowLimits());
        assertEquals(64 << 10, defaults.stream().maxPendingBytesPerClient());
        assertEquals(256L << 20, defaults.stream().maxPendingBytesTotal());
        Properties p = minimal();
        p.setProperty("limits.maxRunsPerToken", "3");
        p.setProperty("airflow.maxResponseBytes", "1000");
        LogTailerConfig config = LogTailerConfig.from(p, Map.of("LOG_TAILER_S3_MAXCONCURRENTREADS", "4",
                "LOG_TAILER_STREAM_MAXPENDINGBYTESTOTAL", "1048576"));
        assertEquals(3, config.callerLimits().maxRunsPerToken());
        assertEquals(1000, config.airflowLimits().maxResponseBytes());
        assertEquals(4, config.s3Limits().maxConcurrentReads());
        assertEquals(1 << 20, config.stream().maxPendingBytesTotal());
        Properties bad = minimal();
        bad.setProperty("stream.maxPendingBytesTotal", "1000");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LogTailerConfig.from(bad, Map.of()))
                .getMessage().contains("stream.maxPendingBytesTotal (1000) must be >= stream.maxPendingBytesPerClient"));
        Properties badRuns = minimal();
        badRuns.setProperty("s3.maxActiveRuns", "0");
        assertEquals("s3.maxActiveRuns must be positive, was 0", assertThrows(IllegalArgumentException.class,
                () -> LogTailerConfig.from(badRuns, Map.of())).getMessage());
    }
}
