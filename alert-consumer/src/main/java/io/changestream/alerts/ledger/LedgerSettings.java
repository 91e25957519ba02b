package io.changestream.alerts.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the {@link DeliveryLedger}; each bound named as in the service's config file ({@code ledger.*}).
 *
 * @param topic             the ledger topic (the catalog's {@code alert-ledger}); required
 * @param groupId           the consumer group whose deliveries this ledger records; required
 * @param ackTimeout        how long a ledger write waits for the broker's ack before the delivery is retried
 *                          ({@code ledger.ackTimeout}, default 10 s)
 * @param rebuildClockSkew  how far before the committed source record's timestamp the rebuild starts reading the
 *                          ledger, covering clock differences between producers ({@code ledger.rebuildClockSkew},
 *                          default 10 s)
 * @param rebuildMaxRecords most ledger records one partition's rebuild reads; past it the window is left partial and
 *                          the Idempotency-Key covers the rest ({@code ledger.rebuildMaxRecords}, default 1,000,000)
 * @param rebuildTimeout    longest one partition's rebuild may take, and longest a processor waits for it
 *                          ({@code ledger.rebuildTimeout}, default 30 s)
 */
public record LedgerSettings(String topic, String groupId, Duration ackTimeout, Duration rebuildClockSkew,
                             int rebuildMaxRecords, Duration rebuildTimeout) {

    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_REBUILD_CLOCK_SKEW = Duration.ofSeconds(10);
    public static final int DEFAULT_REBUILD_MAX_RECORDS = 1_000_000;
    public static final Duration DEFAULT_REBUILD_TIMEOUT = Duration.ofSeconds(30);

    public LedgerSettings {
        requireText(topic, "ledger.topic");
        requireText(groupId, "ledger.groupId");
        positive(ackTimeout, "ledger.ackTimeout");
        Objects.requireNonNull(rebuildClockSkew, "ledger.rebuildClockSkew is required");
        if (rebuildClockSkew.isNegative()) {
            throw new IllegalArgumentException("ledger.rebuildClockSkew must not be negative, was " + rebuildClockSkew);
        }
        if (rebuildMaxRecords < 1) {
            throw new IllegalArgumentException("ledger.rebuildMaxRecords must be >= 1, was " + rebuildMaxRecords);
        }
        positive(rebuildTimeout, "ledger.rebuildTimeout");
    }

    /** The defaults for a topic and group. */
    public static LedgerSettings of(String topic, String groupId) {
        return new LedgerSettings(topic, groupId, DEFAULT_ACK_TIMEOUT, DEFAULT_REBUILD_CLOCK_SKEW,
                DEFAULT_REBUILD_MAX_RECORDS, DEFAULT_REBUILD_TIMEOUT);
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
    }

    private static void positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " is required");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
