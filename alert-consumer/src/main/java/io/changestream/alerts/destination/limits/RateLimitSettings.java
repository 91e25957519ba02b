package io.changestream.alerts.destination.limits;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Per-destination rate limits: a default per destination type (settings {@code destinations.rateLimit.<type>}),
 * overridden per destination by its {@code config.rateLimit}. Immutable.
 *
 * @param defaults        the limit of each type; a type not in the map is not limited
 * @param maxWait         {@link #MAX_WAIT}: longest wait handed out for a reserved slot; a request that would wait
 *                        longer is told to come back after it, unreserved
 * @param maxDestinations {@link #MAX_DESTINATIONS} (the least recently used is dropped)
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
    public static final Map<SubscriptionType, Setting<RateLimit>> LIMITS = limits();
    public static final Setting<Duration> MAX_WAIT = Setting.duration("destinations.rateLimit.maxWait")
            .defaultsTo(Duration.ofMinutes(5)).positive().doc("longest wait for a reserved send slot");
    public static final Setting<Integer> MAX_DESTINATIONS = Setting.integer("destinations.rateLimit.maxDestinations")
            .defaultsTo(10_000).atLeast(1).doc("destinations holding a rate bucket");
    /** The rate limits' settings: one per type, then the bounds. */
    public static final List<Setting<?>> SETTINGS = settings();

    public static final RateLimitSettings DEFAULTS = from(SettingsReader.of(Map.of()));

    public RateLimitSettings {
        Objects.requireNonNull(defaults, "destinations.rateLimit defaults are required");
        EnumMap<SubscriptionType, RateLimit> copy = new EnumMap<>(SubscriptionType.class);
        copy.putAll(defaults);
        if (copy.containsKey(SubscriptionType.WEBHOOK)) {
            copy.putIfAbsent(SubscriptionType.GENERIC, copy.get(SubscriptionType.WEBHOOK));
        }
        defaults = Map.copyOf(copy);
        MAX_WAIT.check(maxWait);
        MAX_DESTINATIONS.check(maxDestinations);
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

    private static Map<SubscriptionType, Setting<RateLimit>> limits() {
        Map<SubscriptionType, Setting<RateLimit>> limits = new EnumMap<>(SubscriptionType.class);
        limits.put(SubscriptionType.WEBHOOK, limit(SubscriptionType.WEBHOOK, RateLimit.OFF,
                "token bucket per Webhook destination (n/s|min|h)"));
        limits.put(SubscriptionType.SLACK, limit(SubscriptionType.SLACK, RateLimit.parse("1/s"),
                "per Slack destination"));
        limits.put(SubscriptionType.MS_TEAMS, limit(SubscriptionType.MS_TEAMS, RateLimit.parse("4/s"),
                "per MS Teams destination"));
        limits.put(SubscriptionType.G_CHAT, limit(SubscriptionType.G_CHAT, RateLimit.parse("1/s"),
                "per Google Chat destination"));
        limits.put(SubscriptionType.EMAIL, limit(SubscriptionType.EMAIL, RateLimit.parse("10/s"),
                "per e-mail destination"));
        limits.put(SubscriptionType.OPEN_LINEAGE, limit(SubscriptionType.OPEN_LINEAGE, RateLimit.OFF,
                "per OpenLineage destination"));
        return java.util.Collections.unmodifiableMap(limits);
    }

    private static Setting<RateLimit> limit(SubscriptionType type, RateLimit defaultLimit, String doc) {
        return Setting.of(key(type), RateLimit::parse, RateLimit::toString).defaultsTo(defaultLimit).doc(doc);
    }

    private static List<Setting<?>> settings() {
        List<Setting<?>> all = new java.util.ArrayList<>(LIMITS.values());
        all.add(MAX_WAIT);
        all.add(MAX_DESTINATIONS);
        return List.copyOf(all);
    }

    /** The rate limits {@code settings} give. */
    public static RateLimitSettings from(SettingsReader settings) {
        Map<SubscriptionType, RateLimit> limits = new EnumMap<>(SubscriptionType.class);
        LIMITS.forEach((type, setting) -> limits.put(type, settings.get(setting)));
        return new RateLimitSettings(limits, settings.get(MAX_WAIT), settings.get(MAX_DESTINATIONS), 10_000);
    }

    /** The default of a type ({@link RateLimit#OFF} when none). */
    public RateLimit defaultFor(SubscriptionType type) {
        return defaults.getOrDefault(type, RateLimit.OFF);
    }
}
