package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.ScheduleInfo;
import io.changestream.topics.model.TriggerType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Issue 13: a Scheduled trigger and the grouping are validated at save; an error names the field. */
class SubscriptionDigestFieldsTest {

    private final SubscriptionFactory factory = Requests.factory(Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"),
            ZoneOffset.UTC));

    private EventSubscription save(String extra) {
        return factory.fromRequest(Requests.json("{\"name\":\"d\",\"resources\":[\"all\"]," + extra + "}"), null,
                "admin");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Custom\"}|trigger.cronExpression",
        "\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Custom\",\"cronExpression\":\"61 * * * * ?\"}"
                + "|trigger.cronExpression",
        "\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Custom\",\"cronExpression\":\"every day\"}"
                + "|trigger.cronExpression",
        "\"grouping\":[\"entityType\"]|grouping",
        "\"grouping\":{\"groupBy\":\"entityType\"}|grouping.groupBy",
        "\"grouping\":{\"groupBy\":[\"entityType\",\"colour\"]}|grouping.groupBy[1]",
        "\"grouping\":{\"groupBy\":[\"entityFqnPrefix:0\"]}|grouping.groupBy[0]",
        "\"grouping\":{\"groupBy\":[\"owner\",\"owner\"]}|grouping.groupBy[1]",
        "\"grouping\":{\"groupWait\":\"soon\"}|grouping.groupWait",
        "\"grouping\":{\"groupInterval\":\"-5m\"}|grouping.groupInterval",
        "\"grouping\":{\"repeatInterval\":\"30d\"}|grouping.repeatInterval",
        "\"grouping\":{\"groupwait\":\"30s\"}|grouping.groupwait",
        "\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Daily\"},\"grouping\":{\"groupWait\":\"1m\"}"
                + "|grouping.groupWait",
    })
    void anUnusableFieldIsRefusedNamingIt(String extra, String field) {
        SubscriptionException.Invalid e = assertThrows(SubscriptionException.Invalid.class, () -> save(extra));
        assertEquals(field, e.field(), e.getMessage());
    }

    @Test
    void usableSchedulesAndGroupingAreKept() {
        EventSubscription daily = save("\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Daily\"},"
                + "\"grouping\":{\"groupBy\":[\"entityType\",\"entityFqnPrefix:2\"]}");
        assertEquals(TriggerType.SCHEDULED, daily.trigger().triggerType());
        assertEquals(ScheduleInfo.DAILY, daily.trigger().scheduleInfo());
        assertTrue(daily.additionalProperties().containsKey("grouping"));
        EventSubscription custom = save("\"trigger\":{\"triggerType\":\"Scheduled\",\"scheduleInfo\":\"Custom\","
                + "\"cronExpression\":\"0 0/15 * * * ?\"}");
        assertEquals("0 0/15 * * * ?", custom.trigger().cronExpression());
        EventSubscription grouped = save("\"grouping\":{\"groupBy\":[\"owner\"],\"groupWait\":\"1m30s\","
                + "\"groupInterval\":\"PT10M\",\"repeatInterval\":\"4h\"}");
        assertTrue(grouped.additionalProperties().containsKey("grouping"));
    }
}
