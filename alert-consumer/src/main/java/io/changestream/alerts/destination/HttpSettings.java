package io.changestream.alerts.destination;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of every HTTP destination.
 *
 * @param allowPrivateAddresses  allow loopback/private/link-local targets (default false; tests and dev stacks set it)
 * @param maxRequestBytes        largest request body sent (default 1 MiB); larger is a PERMANENT failure
 * @param maxResponseBytes       most of a response body read for the failure reason (default 8 KiB)
 * @param maxRetryAfter          cap on a receiver's {@code Retry-After} (default 1 h)
 * @param maxClients             distinct connect timeouts that get their own HttpClient (default 16)
 */
public record HttpSettings(boolean allowPrivateAddresses, int maxRequestBytes, int maxResponseBytes,
                           Duration maxRetryAfter, int maxClients) {

    /** Production defaults. */
    public static final HttpSettings DEFAULTS = new HttpSettings(false, 1 << 20, 8 << 10, Duration.ofHours(1), 16);

    public HttpSettings {
        if (maxRequestBytes < 1) {
            throw new IllegalArgumentException("http.maxRequestBytes must be >= 1, was " + maxRequestBytes);
        }
        if (maxResponseBytes < 0) {
            throw new IllegalArgumentException("http.maxResponseBytes must be >= 0, was " + maxResponseBytes);
        }
        Objects.requireNonNull(maxRetryAfter, "http.maxRetryAfter is required");
        if (maxRetryAfter.isNegative()) {
            throw new IllegalArgumentException("http.maxRetryAfter must be >= 0, was " + maxRetryAfter);
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("http.maxClients must be >= 1, was " + maxClients);
        }
    }

    /** These settings with private addresses allowed (tests with local receivers). */
    public HttpSettings allowingPrivateAddresses() {
        return new HttpSettings(true, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxClients);
    }
}
