package io.changestream.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongMinHeapTest {

    @Test
    void popsInAscendingOrderLikeAPriorityQueue() {
        Random random = new Random(42);
        LongMinHeap heap = new LongMinHeap(4);
        PriorityQueue<Long> reference = new PriorityQueue<>();
        for (int step = 0; step < 20_000; step++) {
            if (reference.isEmpty() || random.nextInt(3) > 0) {
                long value = random.nextInt(500);
                heap.push(value);
                reference.add(value);
            } else {
                assertEquals(reference.peek(), heap.peek());
                assertEquals(reference.poll(), heap.pop());
            }
            assertEquals(reference.size(), heap.size());
        }
    }

    @Test
    void shrinksBackToItsInitialCapacity() {
        LongMinHeap heap = new LongMinHeap(8);
        for (long value = 10_000; value > 0; value--) {
            heap.push(value);
        }
        assertEquals(16_384, heap.capacity());
        for (long expected = 1; expected <= 10_000; expected++) {
            assertEquals(expected, heap.pop());
        }
        assertEquals(16_384, heap.capacity(), "pops alone never copy the array");
        for (int check = 1; check < Capacities.QUIET_CHECKS; check++) {
            heap.maybeShrink();
        }
        assertEquals(16_384, heap.capacity(), "one check short of the quiet run");
        heap.maybeShrink();
        assertEquals(8_192, heap.capacity());
        for (int check = 0; check < 20 * Capacities.QUIET_CHECKS; check++) {
            heap.maybeShrink();
        }
        assertEquals(8, heap.capacity());
    }

    @Test
    void aCheckAboveAQuarterFullRestartsTheQuietRun() {
        LongMinHeap heap = new LongMinHeap(4);
        for (long value = 0; value < 64; value++) {
            heap.push(value);
        }
        while (heap.size() > 16) {
            heap.pop();
        }
        for (int check = 1; check < Capacities.QUIET_CHECKS; check++) {
            heap.maybeShrink();
        }
        heap.push(100); // 17 of 64: above a quarter
        heap.maybeShrink();
        heap.pop();
        for (int check = 1; check < Capacities.QUIET_CHECKS; check++) {
            heap.maybeShrink();
        }
        assertEquals(64, heap.capacity());
        heap.maybeShrink();
        assertEquals(32, heap.capacity());
    }

    @Test
    void emptyHeapRefusesPeekAndPop() {
        LongMinHeap heap = new LongMinHeap(1);
        assertThrows(NoSuchElementException.class, heap::peek);
        assertThrows(NoSuchElementException.class, heap::pop);
        assertThrows(IllegalArgumentException.class, () -> new LongMinHeap(3));
    }
}
