/**
 * Replay through the service (issue 26): the events of a time range of {@code changes} and {@code pipeline-status}
 * delivered again to named subscriptions under a consumer group of their own, with its own committed offsets and
 * ledger records, the live group untouched. {@link io.changestream.alerts.replay.Replays} runs them;
 * {@link io.changestream.alerts.replay.ReplayRoutes} is the admin API.
 */
package io.changestream.alerts.replay;
