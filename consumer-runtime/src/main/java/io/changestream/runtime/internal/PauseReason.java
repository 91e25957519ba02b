package io.changestream.runtime.internal;

/** Why a consumer thread paused a partition; a partition is paused while it has at least one reason. */
public enum PauseReason {
    /** A lane refused one of its records; the rest of the partition waits in the consumer thread's buffer. */
    LANE_FULL,
    /** The delay queue reached {@code delayQueueCapacity}: every partition pauses. */
    DELAY_QUEUE_FULL,
    /** The partition has {@code maxInFlightPerPartition} offsets taken in and not committable. */
    IN_FLIGHT_LIMIT,
    /** The records taken in and not done hold {@code maxBufferedBytes}: every partition pauses. */
    MEMORY_LIMIT,
    /** The runtime is closing: nothing new is taken in. */
    CLOSING
}
