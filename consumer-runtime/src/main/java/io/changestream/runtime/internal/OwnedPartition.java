package io.changestream.runtime.internal;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * One assignment of one partition to one consumer thread (a new object per assignment, so events of an earlier
 * assignment are recognised and dropped). It is also the StateManager's key (identity equality): two consumer
 * threads of one instance that own the same partition one after the other never share or wipe each other's offsets. The consumer thread writes it; lanes read {@link #revoked}; the status view
 * reads the volatile fields.
 */
final class OwnedPartition {

    final TopicPartition topicPartition;
    /** {@code topic-partition@}: an event's coordinates are this and its offset (the lane's MDC, per record). */
    final String coordinatesPrefix;
    /** Set by the consumer thread on revoke: lanes drop this assignment's events instead of processing them. */
    volatile boolean revoked;
    /** Last offset committed (the next offset to read), -1 while unknown. */
    volatile long committed = -1;
    /** Consumer thread: first offset taken in during this assignment, -1 before the first. */
    long firstTracked = -1;
    /** Consumer thread: the committable position last read (at the last commit), -1 before. */
    long lastCommittable = -1;
    /** Highest offset taken in during this assignment, -1 before the first. */
    volatile long highestTracked = -1;
    /** Records between the position and the log end, as the consumer last saw it; -1 while unknown. */
    volatile long consumerLag = -1;
    /** Pause reasons, as published for the status view. */
    volatile Set<PauseReason> pauseReasons = Set.of();

    /** Consumer thread only: the pause reasons in force. */
    private final EnumSet<PauseReason> reasons = EnumSet.noneOf(PauseReason.class);

    OwnedPartition(TopicPartition topicPartition) {
        this.topicPartition = topicPartition;
        this.coordinatesPrefix = topicPartition.topic() + "-" + topicPartition.partition() + "@";
    }

    /** Consumer thread: sets or clears one reason; returns whether the partition should now be paused. */
    boolean reason(PauseReason reason, boolean present) {
        boolean changed = present ? reasons.add(reason) : reasons.remove(reason);
        if (changed) {
            pauseReasons = reasons.isEmpty() ? Set.of() : Set.copyOf(reasons);
        }
        return !reasons.isEmpty();
    }

    /** Consumer thread: whether the reason is in force. */
    boolean has(PauseReason reason) {
        return reasons.contains(reason);
    }

    boolean paused() {
        return !pauseReasons.isEmpty();
    }

    /** The partition and this assignment's identity, for logs and StateManager errors. */
    @Override
    public String toString() {
        return topicPartition + "#" + Integer.toHexString(System.identityHashCode(this));
    }

    /** The next offset the new owner would read if this assignment ended now with everything done. */
    long endOfTaken() {
        return highestTracked + 1;
    }
}
