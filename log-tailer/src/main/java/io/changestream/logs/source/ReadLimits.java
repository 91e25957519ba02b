package io.changestream.logs.source;

/**
 * The bounds of one remote log backend ({@code s3.*} or {@code airflow.*}): how many runs it may be polled for at
 * once, how many reads may be in flight to it at once, and how large one answer may be. Immutable; validated at
 * construction naming the setting.
 *
 * @param kind               the settings prefix: {@code s3} or {@code airflow}
 * @param maxActiveRuns      {@code <kind>.maxActiveRuns}: runs tailed from this backend at once (pollers); a stream
 *                           needing one more gets an {@code error} event naming the setting
 * @param maxConcurrentReads {@code <kind>.maxConcurrentReads}: backend calls in flight at once; a poll finding none
 *                           free reads again on its next tick, a paging request gets 503 naming the setting
 * @param maxResponseBytes   {@code <kind>.maxResponseBytes}: the most bytes read of one answer; a larger answer is
 *                           not read further (a stream gets an {@code error}, a paging request 413, naming the
 *                           setting). Object storage asks for at most {@code stream.maxBytesPerTick} per read and
 *                           never reads more of a body, whatever the server sends
 */
public record ReadLimits(String kind, int maxActiveRuns, int maxConcurrentReads, long maxResponseBytes) {

    public ReadLimits {
        if (!"s3".equals(kind) && !"airflow".equals(kind)) {
            throw new IllegalArgumentException("read limits are for s3 or airflow, not " + kind);
        }
        if (maxActiveRuns <= 0) {
            throw new IllegalArgumentException(kind + ".maxActiveRuns must be > 0, was " + maxActiveRuns);
        }
        if (maxConcurrentReads <= 0) {
            throw new IllegalArgumentException(kind + ".maxConcurrentReads must be > 0, was " + maxConcurrentReads);
        }
        if (maxResponseBytes <= 0) {
            throw new IllegalArgumentException(kind + ".maxResponseBytes must be > 0, was " + maxResponseBytes);
        }
    }

    /** Object storage: 100 runs, 32 reads in flight, 8 MiB per answer. */
    public static ReadLimits s3Defaults() {
        return new ReadLimits("s3", 100, 32, 8L << 20);
    }

    /** The Airflow plugin: 50 runs, 8 reads in flight, 8 MiB per answer (one whole log chunk). */
    public static ReadLimits airflowDefaults() {
        return new ReadLimits("airflow", 50, 8, 8L << 20);
    }
}
