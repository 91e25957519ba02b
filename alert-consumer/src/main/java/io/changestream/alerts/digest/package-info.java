/**
 * Digests (Scheduled subscriptions) and grouping (Alertmanager-style, for real-time subscriptions): one durable
 * collector on {@code alert-digest} ({@link io.changestream.alerts.digest.DigestCollector}, the append side the
 * alert processor hands a pair to) and one flusher per instance that owns partitions of it and sends one message per
 * window ({@link io.changestream.alerts.digest.DigestFlusher}); {@link io.changestream.alerts.digest.DigestPolicy}
 * reads a subscription's schedule and grouping.
 */
package io.changestream.alerts.digest;
