package io.changestream.alerts.subscription;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the {@link SubscriptionStore}. {@link #toString()} masks secret client settings.
 *
 * @param topic              full name of the compacted {@code subscriptions} topic (e.g. {@code cs.subscriptions})
 * @param kafka              client settings shared by its producer and reader ({@code bootstrap.servers},
 *                           security…); serializers are set by the store
 * @param pollTimeout        reader poll timeout (default 100 ms): the upper bound of how late a change is seen
 * @param writeTimeout       how long a write waits for its ack and to become visible in the view (default 10 s)
 * @param startupTimeout     how long {@link SubscriptionStore#start} waits to read the topic to its end (default
 *                           60 s)
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
     * @param staleAfter        older than this the view is stale and the service not ready (setting
     *                          {@code subscriptions.staleAfter}, default 10 s)
     * @param maxStaleness      older than this processing pauses: events wait instead of being matched against a
     *                          view that may miss new subscriptions or still hold deleted ones (setting
     *                          {@code subscriptions.maxStaleness}, default 30 s)
     * @param restartBackoff    first wait before a dead reader is restarted, doubled per consecutive failure
     *                          (setting {@code subscriptions.restartBackoff}, default 1 s)
     * @param restartMaxBackoff longest wait between restarts (setting {@code subscriptions.restartMaxBackoff},
     *                          default 30 s)
     * @param maxRestarts       consecutive restarts that fail before the reader is given up and {@code /health/live}
     *                          fails (setting {@code subscriptions.maxRestarts}, default 10; a reader that catches
     *                          up resets the count)
     */
    public record ReaderHealth(Duration staleAfter, Duration maxStaleness, Duration restartBackoff,
                               Duration restartMaxBackoff, int maxRestarts) {

        /** The defaults. */
        public static final ReaderHealth DEFAULTS = new ReaderHealth(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofSeconds(30), 10);

        public ReaderHealth {
            positive(staleAfter, "subscriptions.staleAfter");
            positive(maxStaleness, "subscriptions.maxStaleness");
            positive(restartBackoff, "subscriptions.restartBackoff");
            positive(restartMaxBackoff, "subscriptions.restartMaxBackoff");
            if (maxStaleness.compareTo(staleAfter) < 0) {
                throw new IllegalArgumentException("subscriptions.maxStaleness must be >= subscriptions.staleAfter, "
                        + "was " + maxStaleness + " < " + staleAfter);
            }
            if (maxRestarts < 0) {
                throw new IllegalArgumentException("subscriptions.maxRestarts must be >= 0, was " + maxRestarts);
            }
        }
    }

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
        positive(writeTimeout, "subscriptions.writeTimeout");
        positive(startupTimeout, "subscriptions.startupTimeout");
        positive(closeTimeout, "subscriptions.closeTimeout");
        Objects.requireNonNull(health, "subscriptions health settings are required");
    }

    /** Defaults for a topic and bootstrap servers. */
    public static SubscriptionStoreSettings of(String topic, String bootstrapServers) {
        return new SubscriptionStoreSettings(topic, Map.of("bootstrap.servers", bootstrapServers),
                Duration.ofMillis(100), Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(10));
    }

    /** Masks every secret Kafka client setting (JAAS config, passwords). */
    @Override
    public String toString() {
        return "SubscriptionStoreSettings[topic=" + topic + ", kafka="
                + io.changestream.alerts.destination.Secrets.maskedSettings(kafka) + ", pollTimeout=" + pollTimeout
                + ", writeTimeout=" + writeTimeout + ", startupTimeout=" + startupTimeout + ", closeTimeout="
                + closeTimeout + ", health=" + health + "]";
    }

    private static void positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " is required");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
