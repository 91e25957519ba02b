package io.changestream.state.internal;

/** Capacity arithmetic shared by the primitive containers: powers of two, doubling, with a hard ceiling. */
final class Capacities {

    /** The largest power-of-two array length a container may grow to. */
    static final int MAX_CAPACITY = 1 << 30;

    private Capacities() {
    }

    static int requirePowerOfTwo(int capacity, String setting) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    setting + " must be a power of two between 1 and " + MAX_CAPACITY + ", was " + capacity);
        }
        return capacity;
    }

    static int grow(int capacity) {
        if (capacity >= MAX_CAPACITY) {
            throw new IllegalStateException("offset container is full at " + MAX_CAPACITY + " entries");
        }
        return capacity << 1;
    }
}
