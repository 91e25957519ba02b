package io.changestream.alerts.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.ScheduleInfo;
import io.changestream.topics.model.TriggerConfig;
import io.changestream.topics.model.TriggerType;
import io.changestream.topics.serde.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DigestPolicyTest {

    private final DigestSettings settings = DigestSettings.of("t", "g");

    private static EventSubscription sub(TriggerConfig trigger, String grouping) {
        EventSubscription s = EventSubscription.builder("id-1", "s").trigger(trigger).build();
        if (grouping == null) {
            return s;
        }
        return new EventSubscription(s.id(), s.name(), s.fullyQualifiedName(), s.displayName(), s.description(),
                s.alertType(), s.trigger(), s.enabled(), s.filteringRules(), s.input(), s.destinations(),
                s.batchSize(), s.retries(), s.pollInterval(), s.provider(), s.owners(), s.domains(), s.version(),
                s.updatedAt(), s.updatedBy(), Map.of("grouping", json(grouping)));
    }

    private static JsonNode json(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void realTimeWithoutGroupingIsDeliveredEventByEvent() {
        assertTrue(DigestPolicy.of(sub(TriggerConfig.REAL_TIME, null), settings).isEmpty());
    }

    @Test
    void thePlatformsDefaultTimesAreMidnightDailySaturdayAndTheFirst() {
        Instant wednesday = Instant.parse("2026-01-14T09:30:00Z");
        assertEquals(Instant.parse("2026-01-15T00:00:00Z"), tick(ScheduleInfo.DAILY, wednesday));
        assertEquals(Instant.parse("2026-01-17T00:00:00Z"), tick(ScheduleInfo.WEEKLY, wednesday), "a Saturday");
        assertEquals(Instant.parse("2026-02-01T00:00:00Z"), tick(ScheduleInfo.MONTHLY, wednesday));
        DigestPolicy custom = DigestPolicy.of(sub(new TriggerConfig(TriggerType.SCHEDULED, ScheduleInfo.CUSTOM,
                "0 0/15 * * * ?"), null), settings).orElseThrow();
        assertEquals(Instant.parse("2026-01-14T09:45:00Z"), custom.nextTick(wednesday));
        assertEquals(Instant.parse("2026-01-14T10:00:00Z"), custom.nextTick(Instant.parse("2026-01-14T09:45:00Z")),
                "strictly after");
    }

    private Instant tick(ScheduleInfo info, Instant after) {
        DigestPolicy p = DigestPolicy.of(sub(new TriggerConfig(TriggerType.SCHEDULED, info, null), null), settings)
                .orElseThrow();
        assertTrue(p.scheduled());
        return p.nextTick(after);
    }

    @Test
    void groupsByEntityTypeFqnPrefixEventTypeAndOwner() {
        DigestPolicy p = DigestPolicy.of(sub(TriggerConfig.REAL_TIME,
                "{\"groupBy\":[\"entityType\",\"entityFqnPrefix:2\",\"eventType\",\"owner\"]}"), settings)
                .orElseThrow();
        ChangeEvent e = new ChangeEvent("e1", "entityUpdated", "table", "id", null, "svc.db.sales.orders", null,
                null, "bob", null, 1L, null, json("{\"owners\":[{\"name\":\"zoe\"},{\"name\":\"al\"}]}"), null,
                null);
        assertEquals("entityType=table,entityFqn=svc.db,eventType=entityUpdated,owner=al+zoe", p.groupOf(e));
        assertFalse(p.scheduled());
    }

    @Test
    void timingDefaultsAreAlertmanagersAndDurationsReadLikeIt() {
        DigestPolicy p = DigestPolicy.of(sub(TriggerConfig.REAL_TIME, "{}"), settings).orElseThrow();
        assertEquals(Duration.ofSeconds(30), p.groupWait());
        assertEquals(Duration.ofMinutes(5), p.groupInterval());
        assertEquals(Duration.ofHours(4), p.repeatInterval());
        assertEquals("", p.groupOf(new ChangeEvent("e", "entityCreated", "table", "id", null, null, null, null,
                null, null, 1L, null, null, null, null)));
        DigestPolicy q = DigestPolicy.of(sub(TriggerConfig.REAL_TIME,
                "{\"groupWait\":\"1h30m\",\"groupInterval\":\"PT2M\",\"repeatInterval\":\"0s\"}"), settings)
                .orElseThrow();
        assertEquals(Duration.ofMinutes(90), q.groupWait());
        assertEquals(Duration.ofMinutes(2), q.groupInterval());
        assertEquals(Duration.ZERO, q.repeatInterval());
    }
}
