package io.changestream.alerts.diagnostics;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * Bounds of the status endpoints' reads of Kafka, so each answers in bounded time whatever the lag or the topics'
 * size.
 *
 * @param sampleRecords {@link #SAMPLE_RECORDS}: records of a subscription's unprocessed range read to count its
 *                      relevant events; beyond them the count is an estimate from the share
 *                      that matched
 * @param scanTime      time budget of that read ({@link #SCAN_TIME})
 * @param listRecords   newest records of {@code alert-ledger} and of {@code alert-dlq} read for the sent and failed
 *                      lists ({@link #LIST_RECORDS})
 * @param maxLimit      largest {@code limit} of one page (500)
 * @param dlqDepthInterval how often {@code changestream_alert_dlq_depth} is read from Kafka (one admin round trip:
 *                      the log start and end offsets of {@code alert-dlq}'s partitions; {@link #DLQ_DEPTH_INTERVAL})
 */
public record DiagnosticsSettings(int sampleRecords, Duration scanTime, int listRecords, int maxLimit,
                                  Duration dlqDepthInterval) {

    public static final Setting<Integer> SAMPLE_RECORDS = Setting.integer("diagnostics.sampleRecords")
            .defaultsTo(1_000).atLeast(1).doc("unprocessed records diagnosticInfo reads to count a subscription's "
                    + "relevant events; beyond them the count is estimated");
    public static final Setting<Duration> SCAN_TIME = Setting.duration("diagnostics.scanTime")
            .defaultsTo(Duration.ofMillis(150)).positive().doc("time budget of that read");
    public static final Setting<Integer> LIST_RECORDS = Setting.integer("diagnostics.listRecords").defaultsTo(20_000)
            .atLeast(1).doc("newest alert-ledger / alert-dlq records the sent and failed event lists read");
    public static final Setting<Duration> DLQ_DEPTH_INTERVAL = Setting.duration("diagnostics.dlqDepthInterval")
            .defaultsTo(Duration.ofSeconds(30)).check(d -> d.toMillis() >= 1_000, "must be at least 1 s")
            .doc("how often changestream_alert_dlq_depth (records held in alert-dlq: log end minus log start, summed "
                    + "over its partitions) is read from Kafka");
    /** The status endpoints' settings. */
    public static final List<Setting<?>> SETTINGS = List.of(SAMPLE_RECORDS, SCAN_TIME, LIST_RECORDS,
            DLQ_DEPTH_INTERVAL);
    private static final int MAX_LIMIT = 500;

    /** The defaults. */
    public static final DiagnosticsSettings DEFAULTS = from(SettingsReader.of(java.util.Map.of()));

    public DiagnosticsSettings {
        SAMPLE_RECORDS.check(sampleRecords);
        SCAN_TIME.check(scanTime);
        LIST_RECORDS.check(listRecords);
        if (maxLimit < 1) {
            throw new IllegalArgumentException("diagnostics maxLimit must be >= 1, was " + maxLimit);
        }
        DLQ_DEPTH_INTERVAL.check(dlqDepthInterval);
    }

    /** The status endpoints' bounds {@code settings} give. */
    public static DiagnosticsSettings from(SettingsReader settings) {
        return new DiagnosticsSettings(settings.get(SAMPLE_RECORDS), settings.get(SCAN_TIME),
                settings.get(LIST_RECORDS), MAX_LIMIT, settings.get(DLQ_DEPTH_INTERVAL));
    }
}
