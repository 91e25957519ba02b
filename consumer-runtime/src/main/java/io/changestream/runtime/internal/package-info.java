/**
 * The runtime's machinery, not API: nothing outside {@code io.changestream.runtime} may import it.
 *
 * <p>The chain, one thread per {@code *Loop}: {@link io.changestream.runtime.internal.RuntimeEngine} wires
 * {@code ConsumerLoop} (one per consumer thread: poll, track, route, pause, commit, rebalance) → {@code LaneAssigner}
 * (KeyBy: the lane of each key) → {@code Lane} (one bounded FIFO per lane) → {@code LaneLoop} (the lane's processor
 * thread, its parked keys and retries) ↔ {@code DelayScheduler} + {@code TimerLoop} (when parked keys are due;
 * processing timeouts). A {@code WorkItem} carries one event through the chain; an {@code OwnedPartition} is one
 * assignment of one partition.
 */
package io.changestream.runtime.internal;
