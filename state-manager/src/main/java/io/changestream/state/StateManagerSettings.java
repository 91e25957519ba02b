package io.changestream.state;

/**
 * Bounds of a {@link StateManager}, validated at construction.
 *
 * @param initialHeapCapacity     entries each partition's two heaps start with and shrink back to; a power of two.
 *                                Default 64.
 * @param maxInFlightPerPartition the most offsets one partition may have tracked and not yet committable; tracking
 *                                more fails, so the consumer must pause the partition before (it reads
 *                                {@link StateManager#inFlightCount}). Default 1,048,576 (about 24 MiB per partition at the bound).
 */
public record StateManagerSettings(int initialHeapCapacity, int maxInFlightPerPartition) {

    public static final int DEFAULT_INITIAL_HEAP_CAPACITY = 64;
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_PARTITION = 1 << 20;

    public StateManagerSettings {
        if (initialHeapCapacity <= 0 || Integer.bitCount(initialHeapCapacity) != 1 || initialHeapCapacity > 1 << 20) {
            throw new IllegalArgumentException(
                    "initialHeapCapacity must be a power of two between 1 and 1048576, was " + initialHeapCapacity);
        }
        if (maxInFlightPerPartition <= 0 || maxInFlightPerPartition > 1 << 30) {
            throw new IllegalArgumentException(
                    "maxInFlightPerPartition must be between 1 and 1073741824, was " + maxInFlightPerPartition);
        }
    }

    /** The documented defaults. */
    public static StateManagerSettings defaults() {
        return new StateManagerSettings(DEFAULT_INITIAL_HEAP_CAPACITY, DEFAULT_MAX_IN_FLIGHT_PER_PARTITION);
    }
}
