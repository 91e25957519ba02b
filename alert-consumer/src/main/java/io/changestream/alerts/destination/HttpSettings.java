package io.changestream.alerts.destination;

import java.net.InetSocketAddress;
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
 * @param proxy                  {@code host:port} of the HTTP proxy every destination request goes through, or null
 *                               (default): no proxy at all — the JVM-wide proxy properties are never used
 */
public record HttpSettings(boolean allowPrivateAddresses, int maxRequestBytes, int maxResponseBytes,
                           Duration maxRetryAfter, int maxClients, String proxy) {

    /** Production defaults. */
    public static final HttpSettings DEFAULTS = new HttpSettings(false, 1 << 20, 8 << 10, Duration.ofHours(1), 16);

    /** Without a proxy. */
    public HttpSettings(boolean allowPrivateAddresses, int maxRequestBytes, int maxResponseBytes,
                        Duration maxRetryAfter, int maxClients) {
        this(allowPrivateAddresses, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxClients, null);
    }

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
        if (proxy != null && proxy.isBlank()) {
            proxy = null;
        }
        if (proxy != null) {
            proxyAddress(proxy);
        }
    }

    /** The proxy's unresolved address, or null without a proxy. */
    public InetSocketAddress proxyAddress() {
        return proxy == null ? null : proxyAddress(proxy);
    }

    /** These settings with requests going through the proxy {@code host:port} (null: none). */
    public HttpSettings withProxy(String hostPort) {
        return new HttpSettings(allowPrivateAddresses, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxClients,
                hostPort);
    }

    private static InetSocketAddress proxyAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
            if (colon < 1 || host.isBlank() || port < 1 || port > 65_535) {
                throw new NumberFormatException();
            }
            return InetSocketAddress.createUnresolved(host, port);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("destinations.proxy must be host:port, was '" + hostPort + "'");
        }
    }

    /** These settings with private addresses allowed (tests with local receivers). */
    public HttpSettings allowingPrivateAddresses() {
        return new HttpSettings(true, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxClients, proxy);
    }
}
