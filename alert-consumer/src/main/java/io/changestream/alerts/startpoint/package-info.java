/**
 * Where a subscription starts: the source offsets resolved when it is created (the log end by default, or the
 * request's {@code startingOffset}/{@code startingTimestamp}), stored with the subscription on its topic, and the
 * per-event check that keeps events before that point away from it.
 */
package io.changestream.alerts.startpoint;
