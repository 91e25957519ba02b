package io.changestream.alerts.destination.http;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of every HTTP destination.
 *
 * @param allowPrivateAddresses  {@link #ALLOW_PRIVATE_ADDRESSES}: loopback/private/link-local targets (tests and dev
 *                               stacks set it)
 * @param maxRequestBytes        largest request body sent (default 1 MiB); larger is a PERMANENT failure
 * @param maxResponseBytes       most of a response body read for the failure reason (default 8 KiB)
 * @param maxRetryAfter          cap on a receiver's {@code Retry-After} (default 1 h)
 * @param maxRequestTime         {@link #MAX_REQUEST_TIME}, connect included: a destination's
 *                               {@code timeout + readTimeout} above it is refused at save time, and a stored one is
 *                               cut to it when sent; it stays below the runtime's processing timeout
 * @param proxy                  {@link #PROXY}: {@code host:port} of the HTTP proxy every destination request goes
 *                               through, or null (default): no proxy at all — the JVM-wide proxy properties are
 *                               never used
 */
public record HttpSettings(boolean allowPrivateAddresses, int maxRequestBytes, int maxResponseBytes,
                           Duration maxRetryAfter, Duration maxRequestTime, String proxy) {

    public static final Setting<Boolean> ALLOW_PRIVATE_ADDRESSES = Setting.bool("destinations.allowPrivateAddresses")
            .defaultsTo(false).doc("allow loopback/private targets (SSRF)");
    public static final Setting<String> PROXY = Setting.string("destinations.proxy").doc("host:port of an HTTP proxy "
            + "for destinations; unset = none (JVM proxy properties are ignored)");
    public static final Setting<Duration> MAX_REQUEST_TIME = Setting.duration("delivery.maxRequestTime")
            .defaultsTo(Duration.ofSeconds(30)).check(d -> d.compareTo(Duration.ofSeconds(2)) >= 0, "must be at "
                    + "least PT2S (a destination's timeout and readTimeout are whole seconds, at least 1 each)")
            .doc("longest one HTTP request may take (a destination's timeout + readTimeout above it is a 400); below "
                    + "runtime.processingTimeout");
    /** The HTTP transport's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(ALLOW_PRIVATE_ADDRESSES, PROXY, MAX_REQUEST_TIME);

    /** Production defaults. */
    public static final HttpSettings DEFAULTS = new HttpSettings(ALLOW_PRIVATE_ADDRESSES.defaultOrFail(), 1 << 20,
            8 << 10, Duration.ofHours(1), MAX_REQUEST_TIME.defaultOrFail());

    /** Without a proxy. */
    public HttpSettings(boolean allowPrivateAddresses, int maxRequestBytes, int maxResponseBytes,
                        Duration maxRetryAfter, Duration maxRequestTime) {
        this(allowPrivateAddresses, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxRequestTime, null);
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
        MAX_REQUEST_TIME.check(maxRequestTime);
        if (proxy != null && proxy.isBlank()) {
            proxy = null;
        }
        if (proxy != null) {
            proxyAddress(proxy);
        }
    }

    /** The HTTP settings {@code settings} give. */
    public static HttpSettings from(SettingsReader settings) {
        return new HttpSettings(settings.get(ALLOW_PRIVATE_ADDRESSES), DEFAULTS.maxRequestBytes,
                DEFAULTS.maxResponseBytes, DEFAULTS.maxRetryAfter, settings.get(MAX_REQUEST_TIME), settings.get(PROXY));
    }

    /** The proxy's unresolved address, or null without a proxy. */
    public InetSocketAddress proxyAddress() {
        return proxy == null ? null : proxyAddress(proxy);
    }

    /** These settings with requests going through the proxy {@code host:port} (null: none). */
    public HttpSettings withProxy(String hostPort) {
        return new HttpSettings(allowPrivateAddresses, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxRequestTime,
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

    /** These settings with {@code maxRequestTime} as the longest request. */
    public HttpSettings withMaxRequestTime(Duration value) {
        return new HttpSettings(allowPrivateAddresses, maxRequestBytes, maxResponseBytes, maxRetryAfter, value, proxy);
    }

    /** These settings with private addresses allowed (tests with local receivers). */
    public HttpSettings allowingPrivateAddresses() {
        return new HttpSettings(true, maxRequestBytes, maxResponseBytes, maxRetryAfter, maxRequestTime, proxy);
    }
}
