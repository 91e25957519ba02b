package io.changestream.state.internal;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * A min-heap of primitive {@code long}s (no boxing). It is 4-ary: half the levels of a binary heap, and the four
 * children of a node share a cache line, which measured about 30% more pairs/s in {@code ops/bench statemanager}
 * than a binary heap (the pop's sift-down dominates). It grows by doubling and shrinks back by halving once it is a
 * quarter full for a while (see {@link #maybeShrink}), never below its initial capacity, so its memory follows
 * its size. Not thread-safe: the owner
 * ({@link PartitionOffsets}) guards it.
 */
public final class LongMinHeap {

    private final int minCapacity;
    private long[] heap;
    private int size;
    private int quietChecks;

    /** @param minCapacity the initial capacity and the floor it shrinks back to, a positive power of two */
    public LongMinHeap(int minCapacity) {
        this.minCapacity = Capacities.requirePowerOfTwo(minCapacity, "minCapacity");
        this.heap = new long[minCapacity];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The backing array's length; tests use it to check that memory shrinks back. */
    public int capacity() {
        return heap.length;
    }

    /** Adds a value in O(log n). */
    public void push(long value) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, Capacities.grow(heap.length));
        }
        long[] h = heap;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            long p = h[parent];
            if (p <= value) {
                break;
            }
            h[i] = p;
            i = parent;
        }
        h[i] = value;
    }

    /** The smallest value; the heap must not be empty. */
    public long peek() {
        if (size == 0) {
            throw new NoSuchElementException("heap is empty");
        }
        return heap[0];
    }

    /** Removes and returns the smallest value in O(log n); the heap must not be empty. */
    public long pop() {
        long top = peek();
        int n = --size;
        if (n > 0) {
            siftDown(heap[n], n);
        }
        return top;
    }

    /** Called once per commit computation: halves the array after it stayed a quarter full long enough. */
    public void maybeShrink() {
        quietChecks = Capacities.quietChecks(quietChecks, size, heap.length, minCapacity);
        if (quietChecks >= Capacities.QUIET_CHECKS) {
            heap = Arrays.copyOf(heap, heap.length >>> 1);
            quietChecks = 0;
        }
    }

    /** Drops every value and gives back memory beyond the initial capacity. */
    public void clear() {
        size = 0;
        quietChecks = 0;
        if (heap.length > minCapacity) {
            heap = new long[minCapacity];
        }
    }

    private void siftDown(long value, int n) {
        long[] h = heap;
        int i = 0;
        int first;
        while ((first = (i << 2) + 1) < n) {
            int end = Math.min(first + 4, n);
            int smallest = first;
            long min = h[first];
            for (int c = first + 1; c < end; c++) {
                long candidate = h[c];
                if (candidate < min) {
                    min = candidate;
                    smallest = c;
                }
            }
            if (value <= min) {
                break;
            }
            h[i] = min;
            i = smallest;
        }
        h[i] = value;
    }
}
