package io.changestream.topics.admin;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link TopicProvisioner}.
 *
 * @param requestTimeout       bound on each Admin request (describe, create, alter); default 30 s
 * @param metadataWait         how long to wait for created topics and raised partitions to become visible in the
 *                             brokers' metadata before {@code provision} returns; default 30 s
 * @param metadataPollInterval pause between two metadata checks while waiting; default 100 ms
 */
public record ProvisionerSettings(Duration requestTimeout, Duration metadataWait, Duration metadataPollInterval) {

    /** Default of {@code requestTimeout}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Default of {@code metadataWait}. */
    public static final Duration DEFAULT_METADATA_WAIT = Duration.ofSeconds(30);
    /** Default of {@code metadataPollInterval}. */
    public static final Duration DEFAULT_METADATA_POLL_INTERVAL = Duration.ofMillis(100);

    public ProvisionerSettings {
        positive(requestTimeout, "requestTimeout");
        positive(metadataWait, "metadataWait");
        positive(metadataPollInterval, "metadataPollInterval");
    }

    /** The defaults. */
    public static ProvisionerSettings defaults() {
        return new ProvisionerSettings(DEFAULT_REQUEST_TIMEOUT, DEFAULT_METADATA_WAIT, DEFAULT_METADATA_POLL_INTERVAL);
    }

    private static void positive(Duration value, String setting) {
        Objects.requireNonNull(value, () -> setting + " is required");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(setting + " must be > 0, was " + value);
        }
    }
}
