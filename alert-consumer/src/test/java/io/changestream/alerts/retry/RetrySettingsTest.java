package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry path's settings name the setting when invalid; its backoff doubles up to its cap. */
class RetrySettingsTest {

    private static RetrySettings settings(Duration inlineBudget, int maxHeldPerDestination, Duration initial, Duration max,
                                          int suspendAfterFailures) {
        return new RetrySettings("cs.alert-retry", "cs.alert-destinations", "g", inlineBudget, 1_048_576, 8,
                8_000, maxHeldPerDestination, 16, Duration.ofSeconds(1), initial, max, suspendAfterFailures, Duration.ofDays(3), 10_000,
                100_000, Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofSeconds(10));
    }

    @Test
    void invalidValuesNameTheirSetting() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings(Duration.ofSeconds(-1), 1000,
                Duration.ofMinutes(1), Duration.ofHours(1), 20)).getMessage().contains("retry.inlineBudget"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings(Duration.ofSeconds(30), 0,
                Duration.ofMinutes(1), Duration.ofHours(1), 20)).getMessage().contains("retry.maxHeldPerDestination"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings(Duration.ofSeconds(30), 1000,
                Duration.ofHours(2), Duration.ofHours(1), 20)).getMessage().contains("retry.maxBackoff"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> settings(Duration.ofSeconds(30), 1000,
                Duration.ofMinutes(1), Duration.ofHours(1), -1)).getMessage().contains("retry.suspendAfterFailures"));
    }

    @Test
    void backoffDoublesUpToTheCapAndTheGroupIsDerived() {
        RetrySettings s = settings(Duration.ZERO, 1000, Duration.ofMinutes(1), Duration.ofMinutes(5), 0);
        assertEquals(Duration.ofMinutes(1), s.backoffAfter(1));
        assertEquals(Duration.ofMinutes(2), s.backoffAfter(2));
        assertEquals(Duration.ofMinutes(4), s.backoffAfter(3));
        assertEquals(Duration.ofMinutes(5), s.backoffAfter(4));
        assertEquals(Duration.ofMinutes(5), s.backoffAfter(1_000));
        assertEquals("g-retry", s.retryGroupId());
    }

    @Test
    void aRetryRecordSurvivesItsJsonAndIgnoresFieldsItDoesNotKnow() {
        RetryRecord r = new RetryRecord("g", "sub", "ev", "WEBHOOK:d1", "d1", "cs.changes", 3, 42, "{\"id\":\"ev\"}",
                2, 1_000, 2_000, 3_000, "HTTP 503", null, "entity-7");
        assertEquals(r, RetryRecord.fromJson(r.toJson()));
        RetryRecord older = RetryRecord.fromJson(r.toJson().replace(",\"orderKey\":\"entity-7\"", ""));
        assertNull(older.orderKey(), "a record written before the order key existed reads without one");
        assertEquals(r, RetryRecord.fromJson(r.toJson().replace("{\"groupId\"", "{\"later\":1,\"groupId\"")));
        assertEquals("sub/ev/WEBHOOK:d1", r.settlementKey());
        assertThrows(IllegalArgumentException.class, () -> RetryRecord.fromJson("{\"groupId\":\"g\"}"));
    }
}
