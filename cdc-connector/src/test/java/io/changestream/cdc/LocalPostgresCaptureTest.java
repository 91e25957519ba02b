package io.changestream.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CdcConfig} accepts and reads every key {@link LocalPostgresCapture} writes (none unknown, none ignored). */
class LocalPostgresCaptureTest {

    private static final LocalPostgresCapture LOCAL =
            new LocalPostgresCapture("127.0.0.1", 54_321, "postgres", "postgres", "pw");

    @Test
    void theConnectorAcceptsEveryKeyAndReadsEveryValueOfTheSlotSettings() {
        Map<String, String> settings = LOCAL.settings("127.0.0.1:9092", "t1.", "cs_e2e_1");
        assertEquals(14, settings.size(), settings.toString());
        CdcConfig config = CdcConfig.fromMap(settings);
        assertEquals("postgres", config.database().kind());
        assertEquals("127.0.0.1", config.database().host());
        assertEquals(54_321, config.database().port());
        assertEquals("postgres", config.database().name());
        assertEquals("postgres", config.database().user());
        assertEquals("pw", config.database().password());
        assertEquals("127.0.0.1:9092", config.kafka().bootstrapServers());
        assertEquals(1, config.kafka().replicationFactor());
        assertEquals(Map.of(), config.kafka().client(), "no kafka.* key may fall through as a client property");
        assertEquals("t1.", config.transform().topicNamespace());
        assertEquals(new CdcConfig.Http("127.0.0.1", 0), config.http());
        assertEquals("cs_e2e_1", config.capture().slotName());
        assertEquals("cs_e2e_1", config.capture().publicationName());
        assertEquals("cs-e2e-1", config.capture().connectorName());
    }

    @Test
    void withoutASlotTheConnectorKeepsItsDefaultSlotAndAcceptsTheCommonKeys() {
        Map<String, String> common = LOCAL.settings("127.0.0.1:9092", "bench.");
        assertEquals(11, common.size(), common.toString());
        CdcConfig config = CdcConfig.fromMap(common);
        assertEquals("changestream_cdc", config.capture().slotName());
        assertEquals("changestream-cdc", config.capture().connectorName());
        assertEquals("bench.", config.transform().topicNamespace());
    }

    @Test
    void callersAdjustTheMapAndANullPasswordLeavesTheKeyOut() {
        Map<String, String> s = new LocalPostgresCapture("127.0.0.1", 5432, "postgres", "postgres", null)
                .settings("127.0.0.1:9092", "dev.");
        assertFalse(s.containsKey("database.password"), s.toString());
        s.put("poll.interval.ms", "25");
        s.put("http.port", "8090");
        CdcConfig config = CdcConfig.fromMap(s);
        assertEquals("", config.database().password());
        assertEquals(25, config.capture().pollIntervalMs());
        assertEquals(8090, config.http().port());
    }
}
