package io.changestream.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PartitionOffsetsTest {

    @Test
    void memoryShrinksBackAfterABurst() {
        PartitionOffsets offsets = new PartitionOffsets(64, 1 << 20);
        int initial = offsets.capacity();
        for (long offset = 0; offset < 100_000; offset++) {
            offsets.track(offset, 0);
        }
        for (long offset = 99_999; offset >= 0; offset--) {
            offsets.done(offset);
        }
        assertTrue(offsets.capacity() > 100_000);
        assertEquals(100_000, offsets.advance());
        for (int commit = 0; commit < 20 * Capacities.QUIET_CHECKS; commit++) {
            offsets.advance();
        }
        assertEquals(initial, offsets.capacity());
    }

    @Test
    void staleDoneEntriesAreDroppedNotKept() {
        PartitionOffsets offsets = new PartitionOffsets(4, 100);
        offsets.track(1, 0);
        offsets.track(3, 0);
        assertTrue(offsets.done(2)); // a hole in the log: accepted, changes nothing
        assertTrue(offsets.done(1));
        assertFalse(offsets.done(1), "a duplicate of an offset already committable");
        assertEquals(2, offsets.advance());
        assertEquals(0, offsets.doneSize());
        assertTrue(offsets.done(3));
        assertEquals(4, offsets.advance());
        assertFalse(offsets.done(3), "nothing in flight: done ignored");
        assertEquals(0, offsets.doneSize());
    }

    @Test
    void doneIsRefusedOutsideTheInFlightRange() {
        PartitionOffsets offsets = new PartitionOffsets(4, 100);
        assertFalse(offsets.done(0), "nothing tracked");
        offsets.track(5, 0);
        offsets.track(6, 0);
        assertFalse(offsets.done(7), "not tracked yet");
        assertFalse(offsets.done(4), "below the oldest in flight");
        assertTrue(offsets.done(6));
    }

    @Test
    void revokedStateIgnoresDoneAndRefusesTrack() {
        PartitionOffsets offsets = new PartitionOffsets(4, 100);
        offsets.track(1, 0);
        offsets.revoke();
        assertFalse(offsets.done(1));
        assertEquals(-1, offsets.advance());
        assertThrows(IllegalStateException.class, () -> offsets.track(2, 0));
    }

    @Test
    void aDoneOldestOffsetPopsTheDoneRunBehindItAtOnce() {
        PartitionOffsets offsets = new PartitionOffsets(4, 100);
        for (long offset = 10; offset < 20; offset++) {
            offsets.track(offset, 0);
        }
        for (long offset = 19; offset > 10; offset--) {
            if (offset != 15) {
                assertTrue(offsets.done(offset));
            }
        }
        assertEquals(-1, offsets.advance(), "10 is still running");
        assertEquals(8, offsets.doneSize());
        offsets.done(10);
        assertEquals(15, offsets.advance(), "10..14 done, 15 running");
        offsets.done(15);
        assertEquals(20, offsets.advance());
        assertEquals(0, offsets.doneSize());
    }
}
