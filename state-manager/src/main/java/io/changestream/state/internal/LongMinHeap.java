package io.changestream.state.internal;

import java.util.NoSuchElementException;

/**
 * A binary min-heap of primitive {@code long}s (no boxing). It grows by doubling and shrinks back by halving once it is
 * a quarter full, never below its initial capacity, so its memory follows its size. Not thread-safe: the owner
 * ({@link PartitionOffsets}) guards it.
 */
public final class LongMinHeap {

    private final int minCapacity;
    private long[] heap;
    private int size;

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
            heap = java.util.Arrays.copyOf(heap, Capacities.grow(heap.length));
        }
        long[] h = heap;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
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
        if (n <= heap.length >>> 2 && heap.length > minCapacity) {
            heap = java.util.Arrays.copyOf(heap, heap.length >>> 1);
        }
        return top;
    }

    /** Drops every value and gives back memory beyond the initial capacity. */
    public void clear() {
        size = 0;
        if (heap.length > minCapacity) {
            heap = new long[minCapacity];
        }
    }

    private void siftDown(long value, int n) {
        long[] h = heap;
        int i = 0;
        int half = n >>> 1;
        while (i < half) {
            int child = (i << 1) + 1;
            long c = h[child];
            int right = child + 1;
            if (right < n && h[right] < c) {
                child = right;
                c = h[right];
            }
            if (value <= c) {
                break;
            }
            h[i] = c;
            i = child;
        }
        h[i] = value;
    }
}
