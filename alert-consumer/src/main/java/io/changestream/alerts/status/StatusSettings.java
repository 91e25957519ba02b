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
 * @param restartBackoff    first wait before a dead reader is restarted ({@code status.restartBackoff}, default 1 s)
 * @param restartMaxBackoff longest wait between restarts ({@code status.restartMaxBackoff}, default 30 s)
 * @param maxRestarts       consecutive failed restarts before the reader is given up and {@code /health/live} fails
 *                          ({@code status.maxRestarts}, default 10)
 */
public record StatusSettings(String ledgerTopic, String dlqTopic, String groupId, int maxEntries, int dedupeEntries,
                             Duration catchUp, Duration restartBackoff, Duration restartMaxBackoff, int maxRestarts) {

    public static final int DEFAULT_MAX_ENTRIES = 100_000;
    public static final int DEFAULT_DEDUPE_ENTRIES = 200_000;
    public static final Duration DEFAULT_CATCH_UP = Duration.ofSeconds(2);
    public static final Duration DEFAULT_RESTART_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_RESTART_MAX_BACKOFF = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_RESTARTS = 10;

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
        Objects.requireNonNull(restartBackoff, "status.restartBackoff");
        Objects.requireNonNull(restartMaxBackoff, "status.restartMaxBackoff");
        if (restartBackoff.isNegative() || restartBackoff.isZero()) {
            throw new IllegalArgumentException("status.restartBackoff must be > 0, was " + restartBackoff);
        }
        if (restartMaxBackoff.compareTo(restartBackoff) < 0) {
            throw new IllegalArgumentException("status.restartMaxBackoff must be >= status.restartBackoff, was "
                    + restartMaxBackoff);
        }
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("status.maxRestarts must be >= 0, was " + maxRestarts);
        }
    }

    /** With the default restart settings. */
    public StatusSettings(String ledgerTopic, String dlqTopic, String groupId, int maxEntries, int dedupeEntries,
                          Duration catchUp) {
        this(ledgerTopic, dlqTopic, groupId, maxEntries, dedupeEntries, catchUp, DEFAULT_RESTART_BACKOFF,
                DEFAULT_RESTART_MAX_BACKOFF, DEFAULT_MAX_RESTARTS);
    }
}
