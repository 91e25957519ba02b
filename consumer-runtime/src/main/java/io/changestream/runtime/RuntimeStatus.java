package io.changestream.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * "Why is it stuck?": one reading of a {@link ConsumerRuntime}, taken from any thread by
 * {@link ConsumerRuntime#status()}. Each part is read on its own (not one atomic cut across threads).
 *
 * @param state          the lifecycle state
 * @param live           false once the runtime failed: a fatal error, or a consumer thread that died and could not
 *                       be started again ({@link ConsumerRuntime#live()}); what {@code /health/live} reports
 * @param partitions     every partition this instance owns, with its commit state
 * @param lanes          every lane with its queue length
 * @param parkedKeys     keys waiting for a retry or a not-before time, at most {@code parkedKeyLimit} of them
 * @param parkedKeyCount how many keys are parked in total
 * @param delayQueueSize events waiting (parked ones and the later events of their keys)
 */
public record RuntimeStatus(RuntimeState state, boolean live, List<PartitionStatus> partitions, List<LaneStatus> lanes,
                            List<ParkedKey> parkedKeys, int parkedKeyCount, int delayQueueSize) {

    public RuntimeStatus {
        partitions = List.copyOf(partitions);
        lanes = List.copyOf(lanes);
        parkedKeys = List.copyOf(parkedKeys);
    }

    /** Total events queued in lanes. */
    public int queuedEvents() {
        return lanes.stream().mapToInt(LaneStatus::queueLength).sum();
    }

    /**
     * One owned partition.
     *
     * @param topic             topic
     * @param partition         partition number
     * @param consumer          the consumer thread that owns it
     * @param committedOffset   last committed offset (next to read); empty while unknown
     * @param committable       the offset the next commit will write; empty while nothing completed
     * @param oldestInFlight    the offset holding the commit back; empty when nothing is in flight
     * @param oldestInFlightAge how long ago that offset was taken in
     * @param inFlightCount     offsets taken in and not committable yet
     * @param paused            whether the partition is paused
     * @param pauseReasons      why (LANE_FULL, DELAY_QUEUE_FULL, IN_FLIGHT_LIMIT, CLOSING)
     * @param consumerLag       records between position and log end, as last seen; empty while unknown
     */
    public record PartitionStatus(String topic, int partition, String consumer, OptionalLong committedOffset,
                                  OptionalLong committable, OptionalLong oldestInFlight,
                                  Optional<Duration> oldestInFlightAge, int inFlightCount, boolean paused,
                                  Set<String> pauseReasons, OptionalLong consumerLag) {
    }

    /**
     * One KeyBy lane.
     *
     * @param lane        lane index
     * @param queueLength events queued (not counting the batch its worker holds)
     * @param load        events of the lane in the runtime: queued, held, running and parked ({@code -1} with
     *                    {@link KeyAssignment#HASH}, which does not count them)
     * @param parkedKeys  keys of this lane that are parked
     */
    public record LaneStatus(int lane, int queueLength, int load, int parkedKeys) {
    }

    /**
     * A key parked behind a retry or a not-before time.
     *
     * @param lane          its lane
     * @param key           the routing key, as text
     * @param topic         the parked event's topic
     * @param partition     its partition
     * @param offset        its offset
     * @param attempt       the attempt it waits for
     * @param notBefore     when it is due
     * @param reason        why it waits
     * @param waitingBehind later events of the key waiting behind it
     */
    public record ParkedKey(int lane, String key, String topic, int partition, long offset, int attempt,
                            Instant notBefore, String reason, int waitingBehind) {
    }
}
