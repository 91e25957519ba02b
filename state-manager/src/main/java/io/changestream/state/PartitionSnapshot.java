package io.changestream.state;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One partition's commit state at one instant, for the status view and metrics.
 *
 * @param committable       the next offset to commit (last contiguous done offset + 1); empty while nothing
 *                          completed in this assignment
 * @param inFlightCount     offsets tracked and not yet committable (done ones waiting behind an older one count)
 * @param oldestInFlight    the offset holding the commit back; empty when nothing is in flight
 * @param oldestInFlightAge how long ago {@code oldestInFlight} was tracked, by the manager's clock
 * @param highestTracked    the highest offset tracked in this assignment; empty before the first track
 */
public record PartitionSnapshot(
        OptionalLong committable,
        int inFlightCount,
        OptionalLong oldestInFlight,
        Optional<Duration> oldestInFlightAge,
        OptionalLong highestTracked) {

    /** The snapshot of a partition that is not assigned. */
    public static final PartitionSnapshot UNASSIGNED = new PartitionSnapshot(
            OptionalLong.empty(), 0, OptionalLong.empty(), Optional.empty(), OptionalLong.empty());

    public PartitionSnapshot {
        Objects.requireNonNull(committable, "committable");
        Objects.requireNonNull(oldestInFlight, "oldestInFlight");
        Objects.requireNonNull(oldestInFlightAge, "oldestInFlightAge");
        Objects.requireNonNull(highestTracked, "highestTracked");
        if (inFlightCount < 0) {
            throw new IllegalArgumentException("inFlightCount must not be negative, was " + inFlightCount);
        }
    }
}
