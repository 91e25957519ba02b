package io.changestream.alerts.platform;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * How the service reaches the platform's REST API to resolve e-mail receivers by role (owners, followers, admins,
 * teams, users, mentions). {@link #toString()} masks the token. Immutable.
 *
 * @param url             the platform's base URL ({@code destinations.platformUrl}, default
 *                        {@code http://localhost:8585})
 * @param bearerToken     a bot's JWT sent as {@code Authorization: Bearer} ({@code destinations.platform.bearerToken};
 *                        null = none)
 * @param timeout         connect and request timeout of one call ({@code destinations.platform.timeout}, 5 s)
 * @param cacheTtl        how long a resolved user, team or admin list is kept ({@code destinations.platform.cacheTtl},
 *                        5 min)
 * @param cacheMaxEntries most users, teams and lists kept ({@code destinations.platform.cacheMaxEntries}, 10,000)
 * @param maxAdminPages   most pages of 50 admins read per resolution (100, i.e. 5,000 admins)
 */
public record PlatformSettings(URI url, String bearerToken, Duration timeout, Duration cacheTtl, int cacheMaxEntries,
                               int maxAdminPages) {

    /** The defaults: a local platform, no token. */
    public static final PlatformSettings DEFAULTS = new PlatformSettings(URI.create("http://localhost:8585"), null,
            Duration.ofSeconds(5), Duration.ofMinutes(5), 10_000, 100);

    public PlatformSettings {
        Objects.requireNonNull(url, "destinations.platformUrl is required");
        bearerToken = bearerToken == null || bearerToken.isBlank() ? null : bearerToken;
        Objects.requireNonNull(timeout, "destinations.platform.timeout is required");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("destinations.platform.timeout must be > 0, was " + timeout);
        }
        Objects.requireNonNull(cacheTtl, "destinations.platform.cacheTtl is required");
        if (cacheTtl.isNegative()) {
            throw new IllegalArgumentException("destinations.platform.cacheTtl must be >= 0, was " + cacheTtl);
        }
        if (cacheMaxEntries < 1) {
            throw new IllegalArgumentException("destinations.platform.cacheMaxEntries must be >= 1, was "
                    + cacheMaxEntries);
        }
        if (maxAdminPages < 1) {
            throw new IllegalArgumentException("platform maxAdminPages must be >= 1, was " + maxAdminPages);
        }
    }

    /** These settings for another platform URL. */
    public PlatformSettings withUrl(URI other) {
        return new PlatformSettings(other, bearerToken, timeout, cacheTtl, cacheMaxEntries, maxAdminPages);
    }

    @Override
    public String toString() {
        return "PlatformSettings[url=" + url + ", bearerToken=" + (bearerToken == null ? "none" : "********")
                + ", timeout=" + timeout + ", cacheTtl=" + cacheTtl + ", cacheMaxEntries=" + cacheMaxEntries + "]";
    }
}
