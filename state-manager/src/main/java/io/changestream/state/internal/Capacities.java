package io.changestream.state.internal;

/**
 * Capacity rules shared by the primitive containers: powers of two, doubling when full, with a hard ceiling; and
 * halving only after the container stayed at most a quarter full through {@value #QUIET_CHECKS} consecutive checks
 * (one per committable read: the runtime reads it after every poll), so a size that swings between commits does not copy arrays back and forth.
 */
final class Capacities {

    /** The largest power-of-two array length a container may grow to. */
    static final int MAX_CAPACITY = 1 << 30;
    /** Consecutive checks at most a quarter full before a container halves. */
    static final int QUIET_CHECKS = 64;

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

    /**
     * One check of the shrink rule; {@code quietChecks} is the container's count so far.
     *
     * @return the new count: 0 after a check that was not quiet, or {@code QUIET_CHECKS} when the container must
     *     halve now (the caller halves it and resets its count)
     */
    static int quietChecks(int quietChecks, int size, int capacity, int minCapacity) {
        if (capacity <= minCapacity || size > capacity >>> 2) {
            return 0;
        }
        return quietChecks + 1;
    }
}
