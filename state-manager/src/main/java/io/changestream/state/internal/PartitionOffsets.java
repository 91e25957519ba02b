package io.changestream.state.internal;

import io.changestream.state.PartitionSnapshot;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The commit state of one partition during one assignment: the in-flight offsets, each with its track time and a
 * done flag; a done oldest offset is popped at once, so the committable position is always current (decision 1130). Every method holds this object's monitor:
 * the consumer thread ({@link #track}, {@link #advance}, {@link #revoke}) and the processor threads ({@link #done})
 * meet here, one short critical section each. Once revoked the object ignores every later call, so a late
 * {@code done} cannot bring its state back.
 */
public final class PartitionOffsets {

    /** Marks "no offset" in the primitive fields. Kafka offsets are never negative. */
    private static final long NONE = -1L;

    private final int maxInFlight;
    private final InFlightQueue inFlight;
    private long highestTracked = NONE;
    private long committable = NONE;
    private boolean revoked;

    /**
     * @param initialCapacity the ring's initial capacity and the floor it shrinks back to (a power of two)
     * @param maxInFlight     how many offsets may be tracked and not yet committable at once
     */
    public PartitionOffsets(int initialCapacity, int maxInFlight) {
        this.maxInFlight = maxInFlight;
        this.inFlight = new InFlightQueue(initialCapacity);
    }

    /**
     * Consumer thread: the record at {@code offset} was taken in. Offsets must increase strictly within an assignment;
     * a replay (seek back) is a revoke and a fresh assign.
     *
     * @throws IllegalArgumentException if the offset is negative, {@code Long.MAX_VALUE} (its successor is the
     *                                  commit position) or not above the highest tracked offset
     * @throws IllegalStateException    if the partition was revoked or {@code maxInFlight} offsets are in flight
     */
    public synchronized void track(long offset, long nowMillis) {
        if (revoked) {
            throw new IllegalStateException("partition was revoked; assign it again before tracking");
        }
        if (offset < 0 || offset == Long.MAX_VALUE) {
            throw new IllegalArgumentException("offset must be between 0 and Long.MAX_VALUE - 1, was " + offset);
        }
        if (offset <= highestTracked) {
            throw new IllegalArgumentException("offset " + offset + " is not above the highest tracked offset "
                    + highestTracked + "; to replay, revoke the partition and assign it again");
        }
        if (inFlight.size() >= maxInFlight) {
            throw new IllegalStateException("maxInFlightPerPartition (" + maxInFlight
                    + ") offsets are in flight; pause the partition before tracking more");
        }
        inFlight.add(offset, nowMillis);
        highestTracked = offset;
    }

    /**
     * Consumer thread: {@link #track} of {@code count} offsets from {@code offsets[0]} in one lock acquisition (the
     * records of one poll). Stops at the first offset refused, with the same exceptions; earlier ones stay tracked.
     */
    public synchronized void trackAll(long[] offsets, int count, long nowMillis) {
        for (int i = 0; i < count; i++) {
            track(offsets[i], nowMillis);
        }
    }

    /** Any thread: {@link #done} of {@code count} offsets from {@code offsets[from]} in one lock acquisition. */
    public synchronized void doneAll(long[] offsets, int from, int count) {
        for (int i = from; i < from + count; i++) {
            done(offsets[i]);
        }
    }

    /**
     * Any thread: the record at {@code offset} is finished. Ignored when the partition was revoked, when the offset
     * was never tracked in this assignment (above the highest tracked) or is already behind the oldest in-flight
     * offset (a duplicate or a replayed completion). An offset inside the in-flight range is accepted; one in a hole
     * of the tracked offsets (never tracked: the log skipped it) and a duplicate change nothing.
     *
     * @return whether the completion was accepted
     */
    public synchronized boolean done(long offset) {
        if (revoked || offset > highestTracked || inFlight.isEmpty() || offset < inFlight.peekOffset()) {
            return false;
        }
        int index = inFlight.indexOf(offset);
        if (index > 0) {
            inFlight.markDone(index);
        } else if (index == 0) {
            committable = inFlight.pop() + 1; // the oldest is done: pop it and every done offset behind it
            while (!inFlight.isEmpty() && inFlight.headDone()) {
                committable = inFlight.pop() + 1;
            }
        }
        return true;
    }

    /**
     * Consumer thread (or the status view): the committable position, the next offset to read (the last contiguous
     * done offset + 1), or -1 while nothing has completed in this assignment. Also the ring's shrink check.
     */
    public synchronized long advance() {
        inFlight.maybeShrink();
        return committable;
    }

    /** Consumer thread: forgets every offset and refuses all later calls. */
    public synchronized void revoke() {
        revoked = true;
        inFlight.clear();
    }

    /** Any thread: advances, then counts the offsets tracked and not yet committable. */
    public synchronized int inFlightCount() {
        advance();
        return inFlight.size();
    }

    /** Any thread: advances, then reads the status fields in one critical section. */
    public synchronized PartitionSnapshot snapshot(long nowMillis) {
        long position = advance();
        boolean idle = inFlight.isEmpty();
        return new PartitionSnapshot(
                optional(position),
                inFlight.size(),
                idle ? OptionalLong.empty() : OptionalLong.of(inFlight.peekOffset()),
                idle ? Optional.empty()
                        : Optional.of(Duration.ofMillis(Math.max(0L, nowMillis - inFlight.peekTrackedAtMillis()))),
                optional(highestTracked));
    }

    /** Test hook: the memory held by the ring, in entries. */
    synchronized int capacity() {
        return inFlight.capacity();
    }

    /** Test hook: offsets flagged done behind an unfinished one. */
    synchronized int doneSize() {
        return inFlight.doneCount();
    }

    private static OptionalLong optional(long offset) {
        return offset == NONE ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
