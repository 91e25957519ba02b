package io.changestream.logs.source;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.util.List;
import java.util.Map;

/**
 * The bounds of one remote log backend ({@code s3.*} or {@code airflow.*}): how many runs it may be polled for at
 * once, how many reads may be in flight to it at once, and how large one answer may be. Each backend's three
 * settings are declared once ({@link #SETTINGS}). Immutable; validated at construction naming the setting.
 *
 * @param kind               the settings prefix: {@value #S3} or {@value #AIRFLOW}
 * @param maxActiveRuns      {@code <kind>.maxActiveRuns} ({@link #S3_MAX_ACTIVE_RUNS},
 *                           {@link #AIRFLOW_MAX_ACTIVE_RUNS}): runs tailed from this backend at once (pollers); a
 *                           stream needing one more gets an {@code error} event naming the setting
 * @param maxConcurrentReads {@code <kind>.maxConcurrentReads} ({@link #S3_MAX_CONCURRENT_READS},
 *                           {@link #AIRFLOW_MAX_CONCURRENT_READS}): backend calls in flight at once; a poll finding
 *                           none free reads again on its next tick, a paging request gets 503 naming the setting
 * @param maxResponseBytes   {@code <kind>.maxResponseBytes} ({@link #S3_MAX_RESPONSE_BYTES},
 *                           {@link #AIRFLOW_MAX_RESPONSE_BYTES}): the most bytes read of one answer; a larger answer
 *                           is not read further (a stream gets an {@code error}, a paging request 413, naming the
 *                           setting). Object storage asks for at most {@code stream.maxBytesPerTick} per read and
 *                           never reads more of a body, whatever the server sends
 */
public record ReadLimits(String kind, int maxActiveRuns, int maxConcurrentReads, long maxResponseBytes) {

    /** The object store's kind and settings prefix. */
    public static final String S3 = "s3";
    /** The Airflow plugin's kind and settings prefix. */
    public static final String AIRFLOW = "airflow";

    /** Object storage: 100 runs polled at once. */
    public static final Setting<Integer> S3_MAX_ACTIVE_RUNS = maxActiveRuns(S3, 100);
    /** Object storage: 32 reads in flight. */
    public static final Setting<Integer> S3_MAX_CONCURRENT_READS = maxConcurrentReads(S3, 32);
    /** Object storage: 8 MiB per answer. */
    public static final Setting<Long> S3_MAX_RESPONSE_BYTES = maxResponseBytes(S3, 8L << 20);
    /** The Airflow plugin: 50 runs polled at once. */
    public static final Setting<Integer> AIRFLOW_MAX_ACTIVE_RUNS = maxActiveRuns(AIRFLOW, 50);
    /** The Airflow plugin: 8 reads in flight. */
    public static final Setting<Integer> AIRFLOW_MAX_CONCURRENT_READS = maxConcurrentReads(AIRFLOW, 8);
    /** The Airflow plugin: 8 MiB per answer (one whole log chunk). */
    public static final Setting<Long> AIRFLOW_MAX_RESPONSE_BYTES = maxResponseBytes(AIRFLOW, 8L << 20);

    /** The read limits of both backends. */
    public static final List<Setting<?>> SETTINGS = List.of(S3_MAX_ACTIVE_RUNS, S3_MAX_CONCURRENT_READS,
            S3_MAX_RESPONSE_BYTES, AIRFLOW_MAX_ACTIVE_RUNS, AIRFLOW_MAX_CONCURRENT_READS, AIRFLOW_MAX_RESPONSE_BYTES);

    public ReadLimits {
        if (!S3.equals(kind) && !AIRFLOW.equals(kind)) {
            throw new IllegalArgumentException("read limits are for s3 or airflow, not " + kind);
        }
        of(kind, S3_MAX_ACTIVE_RUNS, AIRFLOW_MAX_ACTIVE_RUNS).check(maxActiveRuns);
        of(kind, S3_MAX_CONCURRENT_READS, AIRFLOW_MAX_CONCURRENT_READS).check(maxConcurrentReads);
        of(kind, S3_MAX_RESPONSE_BYTES, AIRFLOW_MAX_RESPONSE_BYTES).check(maxResponseBytes);
    }

    /** Object storage's declared defaults: 100 runs, 32 reads in flight, 8 MiB per answer. */
    public static ReadLimits s3Defaults() {
        return from(S3, SettingsReader.of(Map.of()));
    }

    /** The Airflow plugin's declared defaults: 50 runs, 8 reads in flight, 8 MiB per answer. */
    public static ReadLimits airflowDefaults() {
        return from(AIRFLOW, SettingsReader.of(Map.of()));
    }

    /** The read limits of backend {@code kind} ({@value #S3} or {@value #AIRFLOW}) {@code settings} gives. */
    public static ReadLimits from(String kind, SettingsReader settings) {
        return new ReadLimits(kind, settings.get(of(kind, S3_MAX_ACTIVE_RUNS, AIRFLOW_MAX_ACTIVE_RUNS)),
                settings.get(of(kind, S3_MAX_CONCURRENT_READS, AIRFLOW_MAX_CONCURRENT_READS)),
                settings.get(of(kind, S3_MAX_RESPONSE_BYTES, AIRFLOW_MAX_RESPONSE_BYTES)));
    }

    private static <T> Setting<T> of(String kind, Setting<T> s3, Setting<T> airflow) {
        return S3.equals(kind) ? s3 : airflow;
    }

    private static Setting<Integer> maxActiveRuns(String kind, int runs) {
        return Setting.integer(kind + ".maxActiveRuns").defaultsTo(runs).positive()
                .doc("runs polled from that backend at once; a stream needing one more gets an error");
    }

    private static Setting<Integer> maxConcurrentReads(String kind, int reads) {
        return Setting.integer(kind + ".maxConcurrentReads").defaultsTo(reads).positive()
                .doc("calls in flight to that backend at once, over all its runs and paging requests");
    }

    private static Setting<Long> maxResponseBytes(String kind, long bytes) {
        return Setting.number(kind + ".maxResponseBytes").defaultsTo(bytes).positive()
                .doc("the most bytes read of one answer");
    }
}
