/**
 * Commit safety: {@link io.changestream.state.StateManager} tracks, per partition, which offsets were taken in and
 * which finished, and tells the consumer thread the highest offset that is safe to commit.
 */
package io.changestream.state;
