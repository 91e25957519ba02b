package io.changestream.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.NoSuchElementException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InFlightQueueTest {

    @Test
    void keepsOffsetsAndTrackTimesInOrderAcrossWrapGrowAndShrink() {
        Random random = new Random(7);
        InFlightQueue queue = new InFlightQueue(4);
        ArrayDeque<long[]> reference = new ArrayDeque<>();
        long next = 0;
        for (int step = 0; step < 50_000; step++) {
            // phases of growth and drain so the ring wraps, doubles and halves
            boolean growing = (step / 5_000) % 2 == 0;
            if (reference.isEmpty() || random.nextInt(10) < (growing ? 7 : 3)) {
                next += 1 + random.nextInt(3);
                queue.add(next, next * 10);
                reference.add(new long[] {next, next * 10});
            } else {
                long[] expected = reference.poll();
                assertEquals(expected[1], queue.peekTrackedAtMillis());
                assertEquals(expected[0], queue.pop());
            }
            assertEquals(reference.size(), queue.size());
            if (step % 64 == 0) {
                queue.maybeShrink();
            }
        }
        while (!reference.isEmpty()) {
            assertEquals(reference.poll()[0], queue.pop());
            queue.maybeShrink();
        }
        for (int check = 0; check < 20 * Capacities.QUIET_CHECKS; check++) {
            queue.maybeShrink();
        }
        assertEquals(4, queue.capacity());
    }

    @Test
    void clearGivesMemoryBack() {
        InFlightQueue queue = new InFlightQueue(2);
        for (long offset = 0; offset < 100; offset++) {
            queue.add(offset, 0);
        }
        queue.clear();
        assertEquals(2, queue.capacity());
        assertThrows(NoSuchElementException.class, queue::peekOffset);
    }

    @Test
    void findsEachOffsetsSlotAcrossHolesAndWrap() {
        InFlightQueue queue = new InFlightQueue(8);
        for (long offset = 0; offset < 6; offset++) {
            queue.add(offset, 0);
        }
        for (int i = 0; i < 5; i++) {
            queue.pop(); // the head moves on, so later adds wrap around the ring
        }
        long[] tracked = {5, 7, 8, 20, 21, 40, 41};
        for (int i = 1; i < tracked.length; i++) {
            queue.add(tracked[i], 0);
        }
        for (int i = 0; i < tracked.length; i++) {
            assertEquals(i, queue.indexOf(tracked[i]), "slot of " + tracked[i]);
        }
        for (long hole : new long[] {4, 6, 9, 19, 22, 39, 42}) {
            assertEquals(-1, queue.indexOf(hole), "hole " + hole);
        }
        queue.markDone(2);
        assertEquals(1, queue.doneCount());
        queue.pop();
        queue.pop();
        assertTrue(queue.headDone(), "the flag moves with its offset");
        assertEquals(8, queue.pop());
        assertEquals(0, queue.doneCount());
    }

    @Test
    void findsOffsetsAcrossAGapWiderThanAnInt() {
        InFlightQueue queue = new InFlightQueue(4);
        long[] tracked = {7, 3_000_000_000L, 3_000_000_001L, 9_000_000_000L};
        for (long offset : tracked) {
            queue.add(offset, 0);
        }
        for (int i = 0; i < tracked.length; i++) {
            assertEquals(i, queue.indexOf(tracked[i]), "slot of " + tracked[i]);
        }
        assertEquals(-1, queue.indexOf(5_000_000_000L));
        assertEquals(-1, queue.indexOf(9_000_000_001L));
    }
}
