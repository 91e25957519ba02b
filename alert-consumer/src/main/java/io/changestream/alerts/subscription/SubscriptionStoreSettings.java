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
 */
public record SubscriptionStoreSettings(String topic, Map<String, Object> kafka, Duration pollTimeout,
                                        Duration writeTimeout, Duration startupTimeout, Duration closeTimeout) {

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
                + closeTimeout + "]";
    }

    private static void positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " is required");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
