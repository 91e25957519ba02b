/**
 * The {@code alerts-capacity} benchmark: deliveries per second of one alert service over a pre-filled
 * {@code changes} topic, against a bare asynchronous HTTP client loop to the same receiver (the limit).
 */
package io.changestream.bench.capacity;
