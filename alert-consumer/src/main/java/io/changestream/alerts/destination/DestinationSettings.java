package io.changestream.alerts.destination;

import io.changestream.alerts.destination.email.SmtpSettings;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import io.changestream.alerts.destination.limits.RateLimitSettings;
import io.changestream.alerts.destination.lineage.LineageSettings;
import io.changestream.alerts.impact.ImpactSettings;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.TopicCatalog;
import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * Everything the destinations need, one record for the service's config file.
 *
 * @param http     HTTP settings (SSRF guard, bounds)
 * @param messages how messages are written
 * @param breaker  circuit breaker settings
 * @param smtp     the SMTP server, or null when e-mail destinations are not offered
 * @param lineage    OpenLineage settings
 * @param rateLimits per-destination rate limits
 * @param platform   the platform's API, for e-mail receivers by role and the failure impact
 * @param impact     how the failure impact of a run is resolved from the platform's lineage (issue 28)
 */
public record DestinationSettings(HttpSettings http, MessageSettings messages, CircuitBreakerSettings breaker,
                                  SmtpSettings smtp, LineageSettings lineage, RateLimitSettings rateLimits,
                                  PlatformSettings platform, ImpactSettings impact) {

    /** With the default impact settings. */
    public DestinationSettings(HttpSettings http, MessageSettings messages, CircuitBreakerSettings breaker,
                               SmtpSettings smtp, LineageSettings lineage, RateLimitSettings rateLimits,
                               PlatformSettings platform) {
        this(http, messages, breaker, smtp, lineage, rateLimits, platform, ImpactSettings.DEFAULTS);
    }

    /** Production defaults without e-mail. */
    public static final DestinationSettings DEFAULTS = new DestinationSettings(HttpSettings.DEFAULTS,
            MessageSettings.DEFAULTS, CircuitBreakerSettings.DEFAULTS, null, LineageSettings.DEFAULTS);

    /** With the default rate limits. */
    public DestinationSettings(HttpSettings http, MessageSettings messages, CircuitBreakerSettings breaker,
                               SmtpSettings smtp, LineageSettings lineage) {
        this(http, messages, breaker, smtp, lineage, RateLimitSettings.DEFAULTS,
                PlatformSettings.DEFAULTS.withUrl(messages.platformUrl()));
    }

    /** With the platform's API at {@code messages.platformUrl()} and no token. */
    public DestinationSettings(HttpSettings http, MessageSettings messages, CircuitBreakerSettings breaker,
                               SmtpSettings smtp, LineageSettings lineage, RateLimitSettings rateLimits) {
        this(http, messages, breaker, smtp, lineage, rateLimits,
                PlatformSettings.DEFAULTS.withUrl(messages.platformUrl()));
    }

    /** Every destination setting, in the order the README lists them. */
    public static final List<Setting<?>> SETTINGS = Setting.all(HttpSettings.SETTINGS, LineageSettings.SETTINGS,
            PlatformSettings.SETTINGS, CircuitBreakerSettings.SETTINGS, RateLimitSettings.SETTINGS,
            ImpactSettings.SETTINGS, SmtpSettings.SETTINGS);

    /**
     * The destinations' settings {@code settings} give; the OpenLineage Kafka allowlist is checked against
     * {@code catalog}.
     */
    public static DestinationSettings from(SettingsReader settings, TopicCatalog catalog) {
        URI platformUrl = settings.get(PlatformSettings.URL);
        MessageSettings messages = new MessageSettings(platformUrl, MessageSettings.DEFAULTS.maxChangeLines(),
                MessageSettings.DEFAULTS.maxValueChars());
        return new DestinationSettings(HttpSettings.from(settings), messages, CircuitBreakerSettings.from(settings),
                SmtpSettings.from(settings), LineageSettings.from(settings, platformUrl, catalog),
                RateLimitSettings.from(settings), PlatformSettings.from(settings), ImpactSettings.from(settings));
    }

    public DestinationSettings {
        Objects.requireNonNull(http, "destinations.http is required");
        Objects.requireNonNull(messages, "destinations.messages is required");
        Objects.requireNonNull(breaker, "destinations.breaker is required");
        Objects.requireNonNull(lineage, "destinations.lineage is required");
        Objects.requireNonNull(rateLimits, "destinations.rateLimit is required");
        Objects.requireNonNull(platform, "destinations.platform is required");
        Objects.requireNonNull(impact, "impact is required");
    }
}
