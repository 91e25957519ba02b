package io.changestream.alerts.subscription;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the {@link SubscriptionStore}. {@link #toString()} masks secret client settings.
 *
 * @param topic              full name of the compacted {@code subscriptions} topic (e.g. {@code cs.subscriptions})
 * @param kafka              client settings shared by its producer and reader ({@code bootstrap.servers},
 *                           security…); serializers are set by the store
 * @param pollTimeout        reader poll timeout (default 100 ms): the upper bound of how late a change is seen
 * @param writeTimeout       {@link #WRITE_TIMEOUT}: how long a write waits for its ack and to become visible
 * @param startupTimeout     {@link #STARTUP_TIMEOUT}: how long {@link SubscriptionStore#start} waits to read the topic
 *                           to its end
 * @param closeTimeout       bound of {@link SubscriptionStore#close()} (default 10 s)
 * @param health             when the view counts as stale and how a dead reader is restarted
 */
public record SubscriptionStoreSettings(String topic, Map<String, Object> kafka, Duration pollTimeout,
                                        Duration writeTimeout, Duration startupTimeout, Duration closeTimeout,
                                        ReaderHealth health) {

    /**
     * How the subscription view's freshness is judged and its reader kept alive. The view is fresh when the reader
     * confirmed, at most {@code staleAfter} ago, that it holds everything the topic holds (it asks the broker for the
     * end offsets about every {@code staleAfter / 4}).
     *
     * @param staleAfter        {@link #STALE_AFTER}: older, the view is stale and the service not ready
     * @param maxStaleness      {@link #MAX_STALENESS}: older, processing pauses; events wait instead of being matched
     *                          against a view that may miss new subscriptions or still hold deleted ones
     * @param restartBackoff    {@link #RESTART_BACKOFF}, doubled per consecutive failure
     * @param restartMaxBackoff {@link #RESTART_MAX_BACKOFF}
     * @param maxRestarts       {@link #MAX_RESTARTS}: then the reader is given up and {@code /health/live} fails (a
     *                          reader that catches up resets the count)
     */
    public record ReaderHealth(Duration staleAfter, Duration maxStaleness, Duration restartBackoff,
                               Duration restartMaxBackoff, int maxRestarts) {

        public static final Setting<Duration> STALE_AFTER = Setting.duration("subscriptions.staleAfter")
                .defaultsTo(Duration.ofSeconds(10)).positive().doc("view older than this: not ready");
        public static final Setting<Duration> MAX_STALENESS = Setting.duration("subscriptions.maxStaleness")
                .defaultsTo(Duration.ofSeconds(30)).positive().doc("view older than this: processing pauses");
        public static final Setting<Duration> RESTART_BACKOFF = Setting.duration("subscriptions.restartBackoff")
                .defaultsTo(Duration.ofSeconds(1)).positive().doc("first wait before a dead reader is restarted");
        public static final Setting<Duration> RESTART_MAX_BACKOFF = Setting.duration(
                "subscriptions.restartMaxBackoff").defaultsTo(Duration.ofSeconds(30)).positive()
                .doc("longest wait between reader restarts");
        public static final Setting<Integer> MAX_RESTARTS = Setting.integer("subscriptions.maxRestarts")
                .defaultsTo(10).atLeast(0).doc("consecutive failed restarts before /health/live fails");

        /** The defaults. */
        public static final ReaderHealth DEFAULTS = from(SettingsReader.of(Map.of()));

        public ReaderHealth {
            STALE_AFTER.check(staleAfter);
            MAX_STALENESS.check(maxStaleness);
            RESTART_BACKOFF.check(restartBackoff);
            RESTART_MAX_BACKOFF.check(restartMaxBackoff);
            if (maxStaleness.compareTo(staleAfter) < 0) {
                throw new IllegalArgumentException("subscriptions.maxStaleness must be >= subscriptions.staleAfter, "
                        + "was " + maxStaleness + " < " + staleAfter);
            }
            MAX_RESTARTS.check(maxRestarts);
        }

        /** The reader health {@code settings} give. */
        public static ReaderHealth from(SettingsReader settings) {
            return new ReaderHealth(settings.get(STALE_AFTER), settings.get(MAX_STALENESS),
                    settings.get(RESTART_BACKOFF), settings.get(RESTART_MAX_BACKOFF), settings.get(MAX_RESTARTS));
        }
    }

    public static final Setting<Duration> WRITE_TIMEOUT = Setting.duration("subscriptions.writeTimeout")
            .defaultsTo(Duration.ofSeconds(10)).positive().doc("wait for a subscription write to be visible");
    public static final Setting<Duration> STARTUP_TIMEOUT = Setting.duration("subscriptions.startupTimeout")
            .defaultsTo(Duration.ofSeconds(60)).positive().doc("wait to read the subscriptions topic at start");
    /** The store's settings, its reader health's included. */
    public static final List<Setting<?>> SETTINGS = List.of(WRITE_TIMEOUT, STARTUP_TIMEOUT, ReaderHealth.STALE_AFTER,
            ReaderHealth.MAX_STALENESS, ReaderHealth.RESTART_BACKOFF, ReaderHealth.RESTART_MAX_BACKOFF,
            ReaderHealth.MAX_RESTARTS);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    /** With the default reader health settings. */
    public SubscriptionStoreSettings(String topic, Map<String, Object> kafka, Duration pollTimeout,
                                     Duration writeTimeout, Duration startupTimeout, Duration closeTimeout) {
        this(topic, kafka, pollTimeout, writeTimeout, startupTimeout, closeTimeout, ReaderHealth.DEFAULTS);
    }

    /** These settings with other reader health settings. */
    public SubscriptionStoreSettings withHealth(ReaderHealth other) {
        return new SubscriptionStoreSettings(topic, kafka, pollTimeout, writeTimeout, startupTimeout, closeTimeout,
                other);
    }

    public SubscriptionStoreSettings {
        Objects.requireNonNull(topic, "subscriptions.topic is required");
        kafka = Map.copyOf(Objects.requireNonNull(kafka, "subscriptions.kafka is required"));
        if (!kafka.containsKey("bootstrap.servers")) {
            throw new IllegalArgumentException("subscriptions.kafka must contain bootstrap.servers");
        }
        positive(pollTimeout, "subscriptions.pollTimeout");
        WRITE_TIMEOUT.check(writeTimeout);
        STARTUP_TIMEOUT.check(startupTimeout);
        positive(closeTimeout, "subscriptions.closeTimeout");
        Objects.requireNonNull(health, "subscriptions health settings are required");
    }

    /** Defaults for a topic and bootstrap servers. */
    public static SubscriptionStoreSettings of(String topic, String bootstrapServers) {
        return new SubscriptionStoreSettings(topic, Map.of("bootstrap.servers", bootstrapServers), POLL_TIMEOUT,
                WRITE_TIMEOUT.defaultOrFail(), STARTUP_TIMEOUT.defaultOrFail(), CLOSE_TIMEOUT);
    }

    /** The store's settings {@code settings} give, for its topic and Kafka client properties. */
    public static SubscriptionStoreSettings from(SettingsReader settings, String topic, Map<String, Object> kafka) {
        return new SubscriptionStoreSettings(topic, kafka, POLL_TIMEOUT, settings.get(WRITE_TIMEOUT),
                settings.get(STARTUP_TIMEOUT), CLOSE_TIMEOUT, ReaderHealth.from(settings));
    }

    /** Masks every secret Kafka client setting (JAAS config, passwords). */
    @Override
    public String toString() {
        return ConfigText.describe(this);
    }

    private static void positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " is required");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
