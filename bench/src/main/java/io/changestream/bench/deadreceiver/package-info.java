/**
 * The {@code dead-receiver} benchmark: one of two subscriptions points at a receiver that answers
 * {@code 503 Retry-After: 3600} (then {@code 410}); the healthy one's latency and the group's lag must stay flat,
 * the dead one's pairs parked on the retry path, and all of them arrive in per-entity order after a resume.
 */
package io.changestream.bench.deadreceiver;
