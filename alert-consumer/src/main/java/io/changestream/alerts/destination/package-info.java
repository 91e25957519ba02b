/**
 * Destinations: deliver one event of one subscription to one destination over its real protocol and say what
 * happened as a {@link io.changestream.alerts.destination.DeliveryResult} (delivered, retry after, permanent). This
 * package is the contract and the registry that builds and guards every destination; each protocol has its room
 * ({@code http}, {@code webhook}, {@code chat}, {@code email}, {@code lineage}) and the limits theirs
 * ({@code limits}: rate, breaker, concurrency). Destinations are called from the runtime's processor threads and are
 * thread-safe.
 */
package io.changestream.alerts.destination;
