package io.changestream.state.internal;

import java.util.NoSuchElementException;

/**
 * The in-flight side of the two-heap algorithm: offsets in the order they were tracked, each with the time it was
 * tracked. Because the consumer tracks strictly increasing offsets, a min-heap of them is always sorted, so a ring
 * buffer is that heap with O(1) push and pop; the head is the heap top (the oldest in-flight offset). Two parallel
 * primitive arrays, growing by doubling and shrinking back by halving after staying a quarter full for a while
 * (see {@link #maybeShrink}), never below the initial capacity. Not thread-safe: the owner
 * ({@link PartitionOffsets}) guards it.
 */
public final class InFlightQueue {

    private final int minCapacity;
    private long[] offsets;
    private long[] trackedAtMillis;
    private int head;
    private int size;
    private int quietChecks;

    /** @param minCapacity the initial capacity and the floor it shrinks back to, a positive power of two */
    public InFlightQueue(int minCapacity) {
        this.minCapacity = Capacities.requirePowerOfTwo(minCapacity, "minCapacity");
        this.offsets = new long[minCapacity];
        this.trackedAtMillis = new long[minCapacity];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The backing arrays' length; tests use it to check that memory shrinks back. */
    public int capacity() {
        return offsets.length;
    }

    /** Appends an offset larger than every offset added before (the caller checks that). */
    public void add(long offset, long nowMillis) {
        if (size == offsets.length) {
            resize(Capacities.grow(offsets.length));
        }
        int tail = (head + size) & (offsets.length - 1);
        offsets[tail] = offset;
        trackedAtMillis[tail] = nowMillis;
        size++;
    }

    /** The oldest (smallest) offset; the queue must not be empty. */
    public long peekOffset() {
        requireNotEmpty();
        return offsets[head];
    }

    /** When the oldest offset was tracked, in clock millis; the queue must not be empty. */
    public long peekTrackedAtMillis() {
        requireNotEmpty();
        return trackedAtMillis[head];
    }

    /** Removes the oldest offset and returns it; the queue must not be empty. */
    public long pop() {
        requireNotEmpty();
        long offset = offsets[head];
        head = (head + 1) & (offsets.length - 1);
        size--;
        return offset;
    }

    /** Called once per commit computation: halves the arrays after they stayed a quarter full long enough. */
    public void maybeShrink() {
        quietChecks = Capacities.quietChecks(quietChecks, size, offsets.length, minCapacity);
        if (quietChecks >= Capacities.QUIET_CHECKS) {
            resize(offsets.length >>> 1);
            quietChecks = 0;
        }
    }

    /** Drops every offset and gives back memory beyond the initial capacity. */
    public void clear() {
        head = 0;
        size = 0;
        quietChecks = 0;
        if (offsets.length > minCapacity) {
            offsets = new long[minCapacity];
            trackedAtMillis = new long[minCapacity];
        }
    }

    private void requireNotEmpty() {
        if (size == 0) {
            throw new NoSuchElementException("no offset in flight");
        }
    }

    private void resize(int capacity) {
        offsets = unwrap(offsets, capacity);
        trackedAtMillis = unwrap(trackedAtMillis, capacity);
        head = 0;
    }

    private long[] unwrap(long[] ring, int capacity) {
        long[] copy = new long[capacity];
        int first = Math.min(size, ring.length - head);
        System.arraycopy(ring, head, copy, 0, first);
        System.arraycopy(ring, 0, copy, first, size - first);
        return copy;
    }
}
