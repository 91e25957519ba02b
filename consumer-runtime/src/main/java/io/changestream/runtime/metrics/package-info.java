/**
 * The consumer runtime's metrics catalogue: {@link io.changestream.runtime.metrics.RuntimeMeter} names every
 * meter, its type, tags and description. The runtime registers them on the Micrometer {@code MeterRegistry} it is
 * given; the service that owns the registry serves it (Prometheus text at {@code /metrics}).
 */
package io.changestream.runtime.metrics;
