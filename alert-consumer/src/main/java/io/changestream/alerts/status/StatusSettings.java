package io.changestream.alerts.status;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the {@link DeliveryStatusView}. Immutable, validated.
 *
 * @param ledgerTopic   the {@code alert-ledger} topic
 * @param dlqTopic      the {@code alert-dlq} topic
 * @param groupId       the consumer group whose ledger records count (the ledger key carries it)
 * @param maxEntries    (subscription, destination) entries kept at most ({@code status.maxEntries})
 * @param dedupeEntries recent record keys remembered to count a re-written record once ({@code status.dedupeEntries})
 * @param catchUp       how long {@code /status} waits for the view to reach the topics' ends ({@code status.catchUp})
 */
public record StatusSettings(String ledgerTopic, String dlqTopic, String groupId, int maxEntries, int dedupeEntries,
                             Duration catchUp) {

    public static final int DEFAULT_MAX_ENTRIES = 100_000;
    public static final int DEFAULT_DEDUPE_ENTRIES = 200_000;
    public static final Duration DEFAULT_CATCH_UP = Duration.ofSeconds(2);

    public StatusSettings {
        Objects.requireNonNull(ledgerTopic, "ledgerTopic");
        Objects.requireNonNull(dlqTopic, "dlqTopic");
        Objects.requireNonNull(groupId, "groupId");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("status.maxEntries must be >= 1, was " + maxEntries);
        }
        if (dedupeEntries < 1) {
            throw new IllegalArgumentException("status.dedupeEntries must be >= 1, was " + dedupeEntries);
        }
        Objects.requireNonNull(catchUp, "status.catchUp");
        if (catchUp.isNegative()) {
            throw new IllegalArgumentException("status.catchUp must be >= 0, was " + catchUp);
        }
    }
}
