package io.changestream.alerts.destination.limits;

import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Per-destination rate limits: a default per destination type (settings {@code destinations.rateLimit.<type>}),
 * overridden per destination by its {@code config.rateLimit}. Immutable.
 *
 * @param defaults        the limit of each type; a type not in the map is not limited
 * @param maxWait         longest wait handed out for a reserved slot ({@code destinations.rateLimit.maxWait},
 *                        default 5 min); a request that would wait longer is told to come back after it, unreserved
 * @param maxDestinations destinations that keep a bucket ({@code destinations.rateLimit.maxDestinations}, default
 *                        10,000; the least recently used is dropped)
 * @param maxReservations reserved slots per destination (default 10,000)
 */
public record RateLimitSettings(Map<SubscriptionType, RateLimit> defaults, Duration maxWait, int maxDestinations,
                                int maxReservations) {

    /**
     * Slack 1/s (Slack's incoming-webhook limit), MS Teams 4/s (its connector guidance), Google Chat 1/s (Chat's
     * per-space write quota of 60/min), e-mail 10/s (our choice); Webhook and OpenLineage off: they are the user's
     * own receivers, which slow us with 429 + Retry-After (decision 1301; Convoy's 5,000/min is
     * {@code destinations.rateLimit.webhook=5000/min}).
     */
    public static final RateLimitSettings DEFAULTS = new RateLimitSettings(defaultLimits(), Duration.ofMinutes(5),
            10_000, 10_000);

    public RateLimitSettings {
        Objects.requireNonNull(defaults, "destinations.rateLimit defaults are required");
        EnumMap<SubscriptionType, RateLimit> copy = new EnumMap<>(SubscriptionType.class);
        copy.putAll(defaults);
        if (copy.containsKey(SubscriptionType.WEBHOOK)) {
            copy.putIfAbsent(SubscriptionType.GENERIC, copy.get(SubscriptionType.WEBHOOK));
        }
        defaults = Map.copyOf(copy);
        Objects.requireNonNull(maxWait, "destinations.rateLimit.maxWait is required");
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("destinations.rateLimit.maxWait must be > 0, was " + maxWait);
        }
        if (maxDestinations < 1) {
            throw new IllegalArgumentException("destinations.rateLimit.maxDestinations must be >= 1, was "
                    + maxDestinations);
        }
        if (maxReservations < 0) {
            throw new IllegalArgumentException("rate limit maxReservations must be >= 0, was " + maxReservations);
        }
    }

    /** The settings key of a type's default: {@code destinations.rateLimit.webhook}, {@code …msTeams}… */
    public static String key(SubscriptionType type) {
        return "destinations.rateLimit." + switch (type) {
            case WEBHOOK, GENERIC -> "webhook";
            case SLACK -> "slack";
            case MS_TEAMS -> "msTeams";
            case G_CHAT -> "gChat";
            case EMAIL -> "email";
            case OPEN_LINEAGE -> "openLineage";
            case ACTIVITY_FEED -> "activityFeed";
            case GOVERNANCE_WORKFLOW_CHANGE_EVENT -> "governanceWorkflow";
        };
    }

    /** The default limits by type. */
    public static Map<SubscriptionType, RateLimit> defaultLimits() {
        Map<SubscriptionType, RateLimit> limits = new EnumMap<>(SubscriptionType.class);
        limits.put(SubscriptionType.WEBHOOK, RateLimit.OFF);
        limits.put(SubscriptionType.SLACK, RateLimit.parse("1/s"));
        limits.put(SubscriptionType.MS_TEAMS, RateLimit.parse("4/s"));
        limits.put(SubscriptionType.G_CHAT, RateLimit.parse("1/s"));
        limits.put(SubscriptionType.EMAIL, RateLimit.parse("10/s"));
        limits.put(SubscriptionType.OPEN_LINEAGE, RateLimit.OFF);
        return limits;
    }

    /** The default of a type ({@link RateLimit#OFF} when none). */
    public RateLimit defaultFor(SubscriptionType type) {
        return defaults.getOrDefault(type, RateLimit.OFF);
    }
}
