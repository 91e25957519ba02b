package io.changestream.state.internal;

import java.util.NoSuchElementException;

/**
 * The in-flight offsets in the order they were tracked, each with the time it was tracked and a done flag. Because
 * the consumer tracks strictly increasing offsets, the ring is sorted: the head is the oldest in-flight offset, an
 * offset's slot is found by one probe when the tracked offsets are contiguous (the usual case) and by binary search
 * otherwise, and the committable position moves by popping done heads (decision 1130; it replaced DataLeap's done
 * heap). Three parallel primitive arrays, growing by doubling and shrinking back by halving after staying a quarter
 * full for a while (see {@link #maybeShrink}), never below the initial capacity. Not thread-safe: the owner
 * ({@link PartitionOffsets}) guards it.
 */
public final class InFlightQueue {

    private final int minCapacity;
    private long[] offsets;
    private long[] trackedAtMillis;
    private boolean[] done;
    private int head;
    private int size;
    private int quietChecks;

    /** @param minCapacity the initial capacity and the floor it shrinks back to, a positive power of two */
    public InFlightQueue(int minCapacity) {
        this.minCapacity = Capacities.requirePowerOfTwo(minCapacity, "minCapacity");
        this.offsets = new long[minCapacity];
        this.trackedAtMillis = new long[minCapacity];
        this.done = new boolean[minCapacity];
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
        done[tail] = false;
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

    /**
     * The position of {@code offset} counted from the head (0 = the oldest), or -1 when it is not in the queue (a
     * hole in the tracked offsets, or outside them).
     */
    public int indexOf(long offset) {
        if (size == 0) {
            return -1;
        }
        int mask = offsets.length - 1;
        long distance = offset - offsets[head];
        if (distance < 0) {
            return -1;
        }
        int high = size - 1;
        if (distance < size) {
            int guess = (int) distance;
            if (offsets[(head + guess) & mask] == offset) {
                return guess; // contiguous offsets: one probe
            }
            high = guess; // offsets increase by at least 1 per slot
        }
        int low = 0;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long at = offsets[(head + mid) & mask];
            if (at < offset) {
                low = mid + 1;
            } else if (at > offset) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /** Flags the offset at {@code index} (from {@link #indexOf}) done. */
    public void markDone(int index) {
        done[(head + index) & (offsets.length - 1)] = true;
    }

    /** Whether the oldest offset is flagged done; the queue must not be empty. */
    public boolean headDone() {
        requireNotEmpty();
        return done[head];
    }

    /** Offsets flagged done and not yet popped (a test hook: O(size)). */
    public int doneCount() {
        int n = 0;
        for (int i = 0; i < size; i++) {
            n += done[(head + i) & (offsets.length - 1)] ? 1 : 0;
        }
        return n;
    }

    /** Removes the oldest offset and returns it; the queue must not be empty. */
    public long pop() {
        requireNotEmpty();
        long offset = offsets[head];
        done[head] = false;
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
            done = new boolean[minCapacity];
        } else {
            java.util.Arrays.fill(done, false);
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
        boolean[] flags = new boolean[capacity];
        int first = Math.min(size, done.length - head);
        System.arraycopy(done, head, flags, 0, first);
        System.arraycopy(done, 0, flags, first, size - first);
        done = flags;
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
