package io.changestream.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.changestream.ops.UsageException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResetStrategyTest {

    private static final long T0 = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();

    @Test
    void datetimeWithoutZoneIsUtc() {
        assertEquals(T0, ResetStrategy.toDatetime("2026-11-29T10:00:00.000").epochMillis());
    }

    @Test
    void datetimeAcceptsZAndOffsets() {
        assertEquals(T0, ResetStrategy.toDatetime("2026-11-29T10:00:00.000Z").epochMillis());
        assertEquals(T0, ResetStrategy.toDatetime("2026-11-29T08:00:00.000-02:00").epochMillis());
        assertEquals(T0 + 250, ResetStrategy.toDatetime("2026-11-29T11:00:00.250+01:00").epochMillis());
    }

    @Test
    void datetimeWithoutTIsAUsageError() {
        assertThrows(UsageException.class, () -> ResetStrategy.toDatetime("2026-11-29 10:00:00.000"));
        assertThrows(UsageException.class, () -> ResetStrategy.toDatetime("yesterday"));
    }

    @Test
    void durationIsIso8601AndNotNegative() {
        assertEquals(Duration.ofHours(1), ResetStrategy.byDuration("PT1H").duration());
        assertThrows(UsageException.class, () -> ResetStrategy.byDuration("1h"));
        assertThrows(UsageException.class, () -> ResetStrategy.byDuration("-PT1H"));
    }

    @Test
    void topicArgumentsTakeOptionalPartitions() {
        TopicSelection sel = TopicSelection.of(List.of("a", "b:0,2"));
        assertEquals(List.of(), sel.topics().get(0).partitions());
        assertEquals(List.of(0, 2), sel.topics().get(1).partitions());
        assertThrows(UsageException.class, () -> TopicSelection.of(List.of("b:x")));
        assertThrows(UsageException.class, () -> TopicSelection.of(List.of()));
    }
}
