package io.changestream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A frozen clock reads its start until advanced; a running one runs from its start and jumps when advanced. */
class TestClockTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void aFrozenClockMovesOnlyWhenAdvanced() {
        TestClock clock = TestClock.frozenAt(START);
        assertEquals(START, clock.instant());
        assertEquals(START.toEpochMilli(), clock.millis());
        clock.advance(Duration.ofMillis(999));
        clock.advance(Duration.ofMillis(1));
        assertEquals(START.plusSeconds(1), clock.instant());
    }

    @Test
    void aRunningClockRunsFromItsStartAndJumpsWhenAdvanced() {
        TestClock clock = TestClock.runningFrom(START);
        Instant first = clock.instant();
        assertFalse(first.isBefore(START), first.toString());
        assertTrue(first.isBefore(START.plusSeconds(60)), "starts at its start, not the wall clock: " + first);
        clock.advance(Duration.ofHours(1));
        Instant later = clock.instant();
        assertFalse(later.isBefore(first.plus(Duration.ofHours(1))), later.toString());
        assertTrue(later.isBefore(START.plus(Duration.ofHours(1)).plusSeconds(60)), later.toString());
    }
}
