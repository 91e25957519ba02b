/**
 * What stands between a delivery and its receiver: rate limits, the circuit breaker, the per-destination concurrency
 * bulkhead.
 */
package io.changestream.alerts.destination.limits;
