package io.changestream.state;

import io.changestream.state.internal.PartitionOffsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-partition commit safety. Owns, for each assigned partition, the offsets taken in and not yet committable ("in
 * flight", with the time each was tracked and a done flag), in a ring sorted by offset; a completion of the oldest
 * in-flight offset pops it and every done offset behind it, so the committable position (the last popped + 1) is
 * always current. It started as DataLeap's two heaps (in-flight, done, compared top against top); the done heap gave
 * way to flags on the ring (decision 1130): the heap's sift-down was the runtime's hottest frame when lanes finish a
 * partition's records out of order.
 *
 * <p>Threading contract:
 * <ul>
 *   <li>the <b>consumer thread</b> (the one owning the {@code KafkaConsumer}) calls {@link #assign}, {@link #track},
 *       {@link #committable} and {@link #revoke};</li>
 *   <li><b>processor threads</b> (any number) call {@link #done};</li>
 *   <li>any thread (status view, metrics) may call {@link #partitions}, {@link #inFlightCount},
 *       {@link #oldestInFlight}, {@link #oldestInFlightAge} and {@link #snapshot}.</li>
 * </ul>
 * Each partition's state is guarded by its own monitor (one short critical section per call), so processors of
 * different partitions never contend. A {@code done} that arrives after {@link #revoke} is ignored.
 *
 * <p>Memory: two primitive {@code long} arrays per partition (offsets and track times, in a ring, because tracked
 * offsets increase) plus a {@code boolean} done flag per slot; they shrink back when they empty, so
 * memory follows the in-flight count, bounded by {@link StateManagerSettings#maxInFlightPerPartition()}.
 *
 * @param <P> the partition identity (the runtime uses Kafka's {@code TopicPartition}); needs equals and hashCode
 */
public final class StateManager<P> {

    private final Clock clock;
    private final StateManagerSettings settings;
    private final ConcurrentHashMap<P, PartitionOffsets> partitions = new ConcurrentHashMap<>();

    /** A state manager with {@link StateManagerSettings#defaults()}; ages are measured on {@code clock}. */
    public StateManager(Clock clock) {
        this(clock, StateManagerSettings.defaults());
    }

    public StateManager(Clock clock, StateManagerSettings settings) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Consumer thread: starts tracking {@code partition}. Idempotent: an assigned partition keeps its state. */
    public void assign(P partition) {
        partitions.computeIfAbsent(partition, p -> new PartitionOffsets(
                settings.initialHeapCapacity(), settings.maxInFlightPerPartition()));
    }

    /**
     * Consumer thread: the record at {@code offset} was taken in. Offsets increase strictly per partition within an
     * assignment; to replay from an earlier offset, {@link #revoke} and {@link #assign} again.
     *
     * @throws IllegalStateException    if the partition is not assigned, or it has
     *                                  {@link StateManagerSettings#maxInFlightPerPartition()} offsets in flight
     * @throws IllegalArgumentException if the offset is negative, {@code Long.MAX_VALUE} or not above the highest
     *                                  tracked one
     */
    public void track(P partition, long offset) {
        PartitionOffsets state = partitions.get(partition);
        if (state == null) {
            throw new IllegalStateException("partition " + partition + " is not assigned; assign it before tracking");
        }
        state.track(offset, clock.millis());
    }

    /**
     * Consumer thread: {@link #track(Object, long)} of {@code count} offsets from {@code offsets[0]} (increasing), in
     * one lock acquisition and one clock reading: the records of one poll of one partition.
     *
     * @throws IllegalStateException    as {@link #track(Object, long)}
     * @throws IllegalArgumentException as {@link #track(Object, long)}; the offsets before the refused one stay tracked
     */
    public void track(P partition, long[] offsets, int count) {
        PartitionOffsets state = partitions.get(partition);
        if (state == null) {
            throw new IllegalStateException("partition " + partition + " is not assigned; assign it before tracking");
        }
        state.trackAll(offsets, count, clock.millis());
    }

    /**
     * Any processor thread: {@link #done(Object, long)} of {@code count} offsets from {@code offsets[from]}, in one
     * lock acquisition.
     */
    public void done(P partition, long[] offsets, int from, int count) {
        PartitionOffsets state = partitions.get(partition);
        if (state != null) {
            state.doneAll(offsets, from, count);
        }
    }

    /**
     * Any processor thread: the record at {@code offset} finished (successfully or finally failed). Harmless when
     * repeated; ignored for a partition that is not assigned (a late completion after a revoke) and for an offset
     * not tracked yet, so the committable position never passes an offset that was not taken in.
     */
    public void done(P partition, long offset) {
        PartitionOffsets state = partitions.get(partition);
        if (state != null) {
            state.done(offset);
        }
    }

    /**
     * Consumer thread: the current committable position of {@code partition}, the next offset to read (last
     * contiguous done offset + 1). It never moves backwards within an assignment. Empty when the partition is not
     * assigned or nothing has completed since it was assigned.
     */
    public OptionalLong committable(P partition) {
        PartitionOffsets state = partitions.get(partition);
        if (state == null) {
            return OptionalLong.empty();
        }
        long position = state.advance();
        return position < 0 ? OptionalLong.empty() : OptionalLong.of(position);
    }

    /** Consumer thread: forgets all state of {@code partition}; completions arriving later are ignored. */
    public void revoke(P partition) {
        PartitionOffsets state = partitions.remove(partition);
        if (state != null) {
            state.revoke();
        }
    }

    /** Any thread: the assigned partitions, as an immutable copy. */
    public Set<P> partitions() {
        return Set.copyOf(partitions.keySet());
    }

    /** Any thread: offsets tracked and not yet committable (0 for a partition that is not assigned). */
    public int inFlightCount(P partition) {
        PartitionOffsets state = partitions.get(partition);
        return state == null ? 0 : state.inFlightCount();
    }

    /** Any thread: the offset holding the commit back, empty when nothing is in flight. */
    public OptionalLong oldestInFlight(P partition) {
        return snapshot(partition).oldestInFlight();
    }

    /** Any thread: how long ago the oldest in-flight offset was tracked, by the injected clock. */
    public Optional<Duration> oldestInFlightAge(P partition) {
        return snapshot(partition).oldestInFlightAge();
    }

    /**
     * Any thread: the partition's state in one consistent read ({@link PartitionSnapshot#UNASSIGNED} if it is not
     * assigned). Like {@link #committable}, it first moves the committable position forward.
     */
    public PartitionSnapshot snapshot(P partition) {
        PartitionOffsets state = partitions.get(partition);
        return state == null ? PartitionSnapshot.UNASSIGNED : state.snapshot(clock.millis());
    }
}
