/**
 * The runtime's machinery, not API: nothing outside {@code io.changestream.alerts.runtime} may import it.
 *
 * <p>The chain, one thread per {@code *Loop}: {@link io.changestream.alerts.runtime.internal.RuntimeEngine} wires
 * {@link io.changestream.alerts.runtime.internal.ConsumerLoop} (one per consumer thread: poll, track, route, pause,
 * commit, rebalance) → {@link io.changestream.alerts.runtime.internal.Lane} (one bounded FIFO per KeyBy lane) →
 * {@link io.changestream.alerts.runtime.internal.LaneLoop} (the lane's processor thread, its parked keys and retries)
 * ↔ {@link io.changestream.alerts.runtime.internal.DelayScheduler} + {@link io.changestream.alerts.runtime.internal.TimerLoop}
 * (when parked keys are due; processing timeouts). A {@link io.changestream.alerts.runtime.internal.WorkItem} carries
 * one event through the chain; an {@link io.changestream.alerts.runtime.internal.OwnedPartition} is one assignment.
 */
package io.changestream.alerts.runtime.internal;
