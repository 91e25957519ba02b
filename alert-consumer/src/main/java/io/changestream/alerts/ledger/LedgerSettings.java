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
 * @param dedupeHorizon     how far back, by the time a pair was settled, a repeat of it is still recognised
 *                          ({@code ledger.dedupeHorizon}, default 24 h: CDC repeats after a crash come within
 *                          seconds, a DLQ replay or a repeated run status within the same day)
 * @param windowMaxBytes    memory all windows together may hold (estimated bytes of their keys and entries); past
 *                          it the oldest pairs are trimmed first ({@code ledger.windowMaxBytes}, default 64 MiB, about
 *                          300,000 pairs)
 * @param rebuildMaxRecords most ledger records one partition's rebuild reads: the newest ones of the horizon
 *                          ({@code ledger.rebuildMaxRecords}, default 1,000,000)
 * @param rebuildTimeout    one deadline for the rebuilds of partitions assigned together, counted from the
 *                          assignment; a processor waits for its window at most until then, after that its event is
 *                          retried (held) rather than delivered without dedupe ({@code ledger.rebuildTimeout},
 *                          default 30 s)
 * @param rebuildThreads    rebuilds that run at once, each with its own reader ({@code ledger.rebuildThreads},
 *                          default 4)
 * @param batchMaxBytes     most bytes of one ledger batch (the pair outcomes of one source partition written as one
 *                          record): a fuller batch goes out behind the one on its way ({@code ledger.batchMaxBytes},
 *                          default 256 KiB, about 4,000 pairs; at most 900 KiB, below Kafka's 1 MiB record limit)
 */
public record LedgerSettings(String topic, String groupId, Duration ackTimeout, Duration dedupeHorizon,
                             long windowMaxBytes, int rebuildMaxRecords, Duration rebuildTimeout,
                             int rebuildThreads, int batchMaxBytes) {

    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_DEDUPE_HORIZON = Duration.ofHours(24);
    public static final long DEFAULT_WINDOW_MAX_BYTES = 64L * 1024 * 1024;
    public static final int DEFAULT_REBUILD_MAX_RECORDS = 1_000_000;
    public static final Duration DEFAULT_REBUILD_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_REBUILD_THREADS = 4;
    public static final int DEFAULT_BATCH_MAX_BYTES = 256 * 1024;
    /** The largest {@code ledger.batchMaxBytes}: room below the broker's and producer's 1 MiB defaults. */
    public static final int MAX_BATCH_BYTES = 900 * 1024;

    public LedgerSettings {
        requireText(topic, "ledger.topic");
        requireText(groupId, "ledger.groupId");
        positive(ackTimeout, "ledger.ackTimeout");
        positive(dedupeHorizon, "ledger.dedupeHorizon");
        if (windowMaxBytes < 1024) {
            throw new IllegalArgumentException("ledger.windowMaxBytes must be >= 1024, was " + windowMaxBytes);
        }
        if (rebuildMaxRecords < 1) {
            throw new IllegalArgumentException("ledger.rebuildMaxRecords must be >= 1, was " + rebuildMaxRecords);
        }
        positive(rebuildTimeout, "ledger.rebuildTimeout");
        if (rebuildThreads < 1 || rebuildThreads > 64) {
            throw new IllegalArgumentException("ledger.rebuildThreads must be in [1, 64], was " + rebuildThreads);
        }
        if (batchMaxBytes < 1024 || batchMaxBytes > MAX_BATCH_BYTES) {
            throw new IllegalArgumentException("ledger.batchMaxBytes must be in [1024, " + MAX_BATCH_BYTES
                    + "], was " + batchMaxBytes);
        }
    }

    /** The defaults for a topic and group. */
    public static LedgerSettings of(String topic, String groupId) {
        return new LedgerSettings(topic, groupId, DEFAULT_ACK_TIMEOUT, DEFAULT_DEDUPE_HORIZON,
                DEFAULT_WINDOW_MAX_BYTES, DEFAULT_REBUILD_MAX_RECORDS, DEFAULT_REBUILD_TIMEOUT,
                DEFAULT_REBUILD_THREADS, DEFAULT_BATCH_MAX_BYTES);
    }

    /** A copy with another horizon and memory budget (tests, benchmarks). */
    public LedgerSettings withWindow(Duration horizon, long maxBytes) {
        return new LedgerSettings(topic, groupId, ackTimeout, horizon, maxBytes, rebuildMaxRecords, rebuildTimeout,
                rebuildThreads, batchMaxBytes);
    }

    /** A copy with another rebuild bound (tests). */
    public LedgerSettings withRebuild(int maxRecords, Duration timeout) {
        return new LedgerSettings(topic, groupId, ackTimeout, dedupeHorizon, windowMaxBytes, maxRecords, timeout,
                rebuildThreads, batchMaxBytes);
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
