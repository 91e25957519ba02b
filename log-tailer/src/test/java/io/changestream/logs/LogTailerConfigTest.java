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
}
