package io.changestream.alerts.diagnostics;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of the status endpoints' reads of Kafka, so each answers in bounded time whatever the lag or the topics'
 * size.
 *
 * @param sampleRecords records of a subscription's unprocessed range ({@code diagnostics.sampleRecords}, default
 *                      1,000) read to count its relevant events; beyond them the count is an estimate from the share
 *                      that matched
 * @param scanTime      time budget of that read ({@code diagnostics.scanTime}, default 150 ms)
 * @param listRecords   newest records of {@code alert-ledger} and of {@code alert-dlq} read for the sent and failed
 *                      lists ({@code diagnostics.listRecords}, default 20,000)
 * @param maxLimit      largest {@code limit} of one page (500)
 * @param dlqDepthInterval how often {@code changestream_alert_dlq_depth} is read from Kafka (one admin round trip:
 *                      the log start and end offsets of {@code alert-dlq}'s partitions;
 *                      {@code diagnostics.dlqDepthInterval}, default 30 s, at least 1 s)
 */
public record DiagnosticsSettings(int sampleRecords, Duration scanTime, int listRecords, int maxLimit,
                                  Duration dlqDepthInterval) {

    /** Default of {@code diagnostics.sampleRecords}. */
    public static final int DEFAULT_SAMPLE_RECORDS = 1_000;
    /** Default of {@code diagnostics.scanTime}. */
    public static final Duration DEFAULT_SCAN_TIME = Duration.ofMillis(150);
    /** Default of {@code diagnostics.listRecords}. */
    public static final int DEFAULT_LIST_RECORDS = 20_000;
    /** Default of {@code diagnostics.dlqDepthInterval}. */
    public static final Duration DEFAULT_DLQ_DEPTH_INTERVAL = Duration.ofSeconds(30);
    /** The defaults. */
    public static final DiagnosticsSettings DEFAULTS = new DiagnosticsSettings(DEFAULT_SAMPLE_RECORDS,
            DEFAULT_SCAN_TIME, DEFAULT_LIST_RECORDS, 500, DEFAULT_DLQ_DEPTH_INTERVAL);

    public DiagnosticsSettings {
        if (sampleRecords < 1) {
            throw new IllegalArgumentException("diagnostics.sampleRecords must be >= 1, was " + sampleRecords);
        }
        Objects.requireNonNull(scanTime, "diagnostics.scanTime");
        if (scanTime.isNegative() || scanTime.isZero()) {
            throw new IllegalArgumentException("diagnostics.scanTime must be > 0, was " + scanTime);
        }
        if (listRecords < 1) {
            throw new IllegalArgumentException("diagnostics.listRecords must be >= 1, was " + listRecords);
        }
        if (maxLimit < 1) {
            throw new IllegalArgumentException("diagnostics maxLimit must be >= 1, was " + maxLimit);
        }
        Objects.requireNonNull(dlqDepthInterval, "diagnostics.dlqDepthInterval");
        if (dlqDepthInterval.toMillis() < 1_000) {
            throw new IllegalArgumentException("diagnostics.dlqDepthInterval must be >= 1 s, was " + dlqDepthInterval);
        }
    }
}
