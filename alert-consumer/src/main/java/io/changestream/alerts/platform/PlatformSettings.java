package io.changestream.alerts.platform;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * How the service reaches the platform's REST API to resolve e-mail receivers by role (owners, followers, admins,
 * teams, users, mentions). {@link #toString()} masks the token. Immutable.
 *
 * @param url             {@link #URL}
 * @param bearerToken     {@link #BEARER_TOKEN}: a bot's JWT sent as {@code Authorization: Bearer}; null = none
 * @param timeout         {@link #TIMEOUT}: connect and request timeout of one call
 * @param cacheTtl        {@link #CACHE_TTL}
 * @param cacheMaxEntries {@link #CACHE_MAX_ENTRIES}
 * @param maxAdminPages   most pages of 50 admins read per resolution (100, i.e. 5,000 admins)
 */
public record PlatformSettings(URI url, String bearerToken, Duration timeout, Duration cacheTtl, int cacheMaxEntries,
                               int maxAdminPages) {

    public static final Setting<URI> URL = Setting.of("destinations.platformUrl", URI::create, URI::toString)
            .defaultsTo(URI.create("http://localhost:8585")).doc("platform base URL for links");
    public static final Setting<String> BEARER_TOKEN = Setting.string("destinations.platform.bearerToken").secret()
            .doc("token for the platform's API (e-mail roles)");
    public static final Setting<Duration> TIMEOUT = Setting.duration("destinations.platform.timeout")
            .defaultsTo(Duration.ofSeconds(5)).positive().doc("timeout of one platform API call");
    public static final Setting<Duration> CACHE_TTL = Setting.duration("destinations.platform.cacheTtl")
            .defaultsTo(Duration.ofMinutes(5)).notNegative().doc("how long resolved users/teams/admins are kept");
    public static final Setting<Integer> CACHE_MAX_ENTRIES = Setting.integer("destinations.platform.cacheMaxEntries")
            .defaultsTo(10_000).atLeast(1).doc("most users/teams/lists cached");
    /** The platform API's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(URL, BEARER_TOKEN, TIMEOUT, CACHE_TTL, CACHE_MAX_ENTRIES);

    /** The defaults: a local platform, no token. */
    public static final PlatformSettings DEFAULTS = new PlatformSettings(URL.defaultOrFail(), null,
            TIMEOUT.defaultOrFail(), CACHE_TTL.defaultOrFail(), CACHE_MAX_ENTRIES.defaultOrFail(), 100);

    public PlatformSettings {
        URL.check(url);
        bearerToken = bearerToken == null || bearerToken.isBlank() ? null : bearerToken;
        TIMEOUT.check(timeout);
        CACHE_TTL.check(cacheTtl);
        CACHE_MAX_ENTRIES.check(cacheMaxEntries);
        if (maxAdminPages < 1) {
            throw new IllegalArgumentException("platform maxAdminPages must be >= 1, was " + maxAdminPages);
        }
    }

    /** These settings for another platform URL. */
    public PlatformSettings withUrl(URI other) {
        return new PlatformSettings(other, bearerToken, timeout, cacheTtl, cacheMaxEntries, maxAdminPages);
    }

    /** The platform API's settings {@code settings} give. */
    public static PlatformSettings from(SettingsReader settings) {
        return new PlatformSettings(settings.get(URL), settings.get(BEARER_TOKEN), settings.get(TIMEOUT),
                settings.get(CACHE_TTL), settings.get(CACHE_MAX_ENTRIES), DEFAULTS.maxAdminPages());
    }

    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
