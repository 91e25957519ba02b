package io.changestream.alerts.ledger;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the {@link DeliveryLedger}; each bound a declared setting ({@code ledger.*}).
 *
 * @param topic             the ledger topic (the catalog's {@code alert-ledger}); required
 * @param groupId           the consumer group whose deliveries this ledger records; required
 * @param ackTimeout        {@link #ACK_TIMEOUT}: then the delivery is retried
 * @param dedupeHorizon     {@link #DEDUPE_HORIZON}: CDC repeats after a crash come within seconds, a DLQ replay or a
 *                          repeated run status within the same day
 * @param windowMaxBytes    {@link #WINDOW_MAX_BYTES} (estimated bytes of the windows' keys and entries, 64 MiB about
 *                          300,000 pairs); past it the oldest pairs are trimmed first
 * @param rebuildMaxRecords {@link #REBUILD_MAX_RECORDS}: the newest ones of the horizon
 * @param rebuildTimeout    {@link #REBUILD_TIMEOUT}, counted from the assignment; a processor waits for its window at
 *                          most until then, after that its event is retried (held) rather than delivered without
 *                          dedupe
 * @param rebuildThreads    {@link #REBUILD_THREADS}, each with its own reader
 * @param batchMaxBytes     {@link #BATCH_MAX_BYTES}: the pair outcomes of one source partition written as one record;
 *                          a fuller batch goes out behind the one on its way (256 KiB is about 4,000 pairs)
 */
public record LedgerSettings(String topic, String groupId, Duration ackTimeout, Duration dedupeHorizon,
                             long windowMaxBytes, int rebuildMaxRecords, Duration rebuildTimeout,
                             int rebuildThreads, int batchMaxBytes) {

    public static final Setting<Duration> ACK_TIMEOUT = Setting.duration("ledger.ackTimeout")
            .defaultsTo(Duration.ofSeconds(10)).positive().doc("wait for a ledger/DLQ ack before retrying");
    public static final Setting<Duration> DEDUPE_HORIZON = Setting.duration("ledger.dedupeHorizon")
            .defaultsTo(Duration.ofHours(24)).positive()
            .doc("a repeat of a pair settled this long ago is still skipped");
    public static final Setting<Long> WINDOW_MAX_BYTES = Setting.number("ledger.windowMaxBytes")
            .defaultsTo(64L * 1024 * 1024).atLeast(1024).doc("memory of all ledger windows; oldest pairs trimmed");
    public static final Setting<Integer> REBUILD_MAX_RECORDS = Setting.integer("ledger.rebuildMaxRecords")
            .defaultsTo(1_000_000).atLeast(1).doc("newest ledger records one window rebuild reads");
    public static final Setting<Duration> REBUILD_TIMEOUT = Setting.duration("ledger.rebuildTimeout")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("deadline of the rebuilds of one assignment");
    public static final Setting<Integer> REBUILD_THREADS = Setting.integer("ledger.rebuildThreads").defaultsTo(4)
            .between(1, 64).doc("window rebuilds running at once");
    /** The largest {@code ledger.batchMaxBytes}: room below the broker's and producer's 1 MiB defaults. */
    public static final int MAX_BATCH_BYTES = 900 * 1024;
    public static final Setting<Integer> BATCH_MAX_BYTES = Setting.integer("ledger.batchMaxBytes")
            .defaultsTo(256 * 1024).between(1024, MAX_BATCH_BYTES).doc("most bytes of one ledger batch (group commit)");
    /**
     * The ledger producer's {@code linger.ms}: 0 by default, the ledger group-commits its batches itself (decision
     * 2201), so a linger only adds latency.
     */
    public static final Setting<Duration> LINGER = Setting.duration("ledger.linger").defaultsTo(Duration.ZERO)
            .check(d -> !d.isNegative() && d.toMillis() <= 1_000, "must be between 0 and 1 s")
            .doc("the ledger producer's linger.ms (batches form while one is on its way)");
    /** The ledger's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(ACK_TIMEOUT, DEDUPE_HORIZON, WINDOW_MAX_BYTES,
            REBUILD_MAX_RECORDS, REBUILD_TIMEOUT, REBUILD_THREADS, LINGER, BATCH_MAX_BYTES);

    public LedgerSettings {
        requireText(topic, "ledger.topic");
        requireText(groupId, "ledger.groupId");
        ACK_TIMEOUT.check(ackTimeout);
        DEDUPE_HORIZON.check(dedupeHorizon);
        WINDOW_MAX_BYTES.check(windowMaxBytes);
        REBUILD_MAX_RECORDS.check(rebuildMaxRecords);
        REBUILD_TIMEOUT.check(rebuildTimeout);
        REBUILD_THREADS.check(rebuildThreads);
        BATCH_MAX_BYTES.check(batchMaxBytes);
    }

    /** The defaults for a topic and group. */
    public static LedgerSettings of(String topic, String groupId) {
        return from(SettingsReader.of(java.util.Map.of()), topic, groupId);
    }

    /** The ledger settings {@code settings} give, for a topic and group. */
    public static LedgerSettings from(SettingsReader settings, String topic, String groupId) {
        return new LedgerSettings(topic, groupId, settings.get(ACK_TIMEOUT), settings.get(DEDUPE_HORIZON),
                settings.get(WINDOW_MAX_BYTES), settings.get(REBUILD_MAX_RECORDS), settings.get(REBUILD_TIMEOUT),
                settings.get(REBUILD_THREADS), settings.get(BATCH_MAX_BYTES));
    }

    /** A copy with another horizon and memory budget (tests, benchmarks). */
    public LedgerSettings withWindow(Duration horizon, long maxBytes) {
        return new LedgerSettings(topic, groupId, ackTimeout, horizon, maxBytes, rebuildMaxRecords, rebuildTimeout,
                rebuildThreads, batchMaxBytes);
    }

    /** The same ledger for another consumer group (a replay's): its records are that group's only. */
    public LedgerSettings forGroup(String otherGroupId) {
        return new LedgerSettings(topic, otherGroupId, ackTimeout, dedupeHorizon, windowMaxBytes, rebuildMaxRecords,
                rebuildTimeout, rebuildThreads, batchMaxBytes);
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
}
