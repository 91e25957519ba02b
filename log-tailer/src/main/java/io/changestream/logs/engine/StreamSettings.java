package io.changestream.logs.engine;

import java.time.Duration;

/**
 * Every limit of the log stream, with the platform's defaults ({@link #defaults()}). Immutable; validated at
 * construction with a message naming the setting. Read by any thread.
 *
 * @param poll                     {@code pollSeconds} (2): delay between two polls of one run; decimals allowed
 * @param linesPerRead             {@code linesPerRead} (1000): lines per backend page
 * @param maxReadsPerTick          {@code maxReadsPerTick} (20): backend pages per poll at most
 * @param maxBytesPerTick          {@code maxBytesPerTick} (1 MiB): bytes read per poll at most
 * @param maxStreamBytes           {@code maxStreamBytes} (32 MiB): bytes of log frames one connection is sent
 *                                 before its own {@code complete maxBytes}
 * @param maxStreamSeconds         {@code maxStreamSeconds} (3600): one connection's lifetime before its own
 *                                 {@code complete maxDuration} (a late joiner gets its own hour)
 * @param maxIdleSeconds           {@code maxIdleSeconds} (300): silence before {@code idleTimeout}
 * @param finishGraceSeconds       {@code finishGraceSeconds} (10): silence after a finished run before
 *                                 {@code runFinished}
 * @param unknownRunGraceSeconds   {@code unknownRunGraceSeconds} (60): silence of a run with no status row before
 *                                 {@code runFinished}
 * @param runProbeSeconds          {@code runProbeSeconds} (10): run state looked up at most this often
 * @param maxReplayBytes           {@code maxReplayBytes} (256 KiB): replay buffer per run for late joiners
 * @param maxPendingBytesPerClient {@code maxPendingBytesPerClient} (64 KiB): unsent UTF-8 bytes a viewer may fall
 *                                 behind by; past it the viewer is sent {@code truncated} with the cursor of the last
 *                                 frame it was written and closed (it resumes from that cursor). A viewer with nothing
 *                                 pending always takes the next frame, however large
 * @param maxPendingBytesTotal     {@code maxPendingBytesTotal} (256 MiB): unsent bytes of all viewers together; past
 *                                 it the viewers furthest behind are cut off the same way until the total is within
 * @param maxActiveRuns            {@code maxActiveRuns} (200): runs tailed at once; sizes the poll scheduler
 * @param maxActiveConnections     {@code maxActiveConnections} (500): open stream connections
 * @param heartbeatSeconds         {@code heartbeatSeconds} (25): interval of the {@code : heartbeat} comment
 */
public record StreamSettings(
        Duration poll,
        int linesPerRead,
        int maxReadsPerTick,
        long maxBytesPerTick,
        long maxStreamBytes,
        long maxStreamSeconds,
        long maxIdleSeconds,
        long finishGraceSeconds,
        long unknownRunGraceSeconds,
        long runProbeSeconds,
        long maxReplayBytes,
        long maxPendingBytesPerClient,
        int maxActiveRuns,
        int maxActiveConnections,
        long heartbeatSeconds,
        long maxPendingBytesTotal) {

    private static final long KIB = 1024;
    private static final long MIB = KIB * KIB;
    private static final int RUNS_PER_POLL_THREAD = 25;
    private static final int MIN_POLL_THREADS = 2;
    private static final int MAX_POLL_THREADS = 16;

    public StreamSettings {
        if (poll == null || poll.isNegative() || poll.isZero()) {
            throw new IllegalArgumentException("stream.pollSeconds must be > 0, was " + poll);
        }
        positive("stream.linesPerRead", linesPerRead);
        positive("stream.maxReadsPerTick", maxReadsPerTick);
        positive("stream.maxBytesPerTick", maxBytesPerTick);
        positive("stream.maxStreamBytes", maxStreamBytes);
        positive("stream.maxStreamSeconds", maxStreamSeconds);
        positive("stream.maxIdleSeconds", maxIdleSeconds);
        positive("stream.finishGraceSeconds", finishGraceSeconds);
        positive("stream.unknownRunGraceSeconds", unknownRunGraceSeconds);
        positive("stream.runProbeSeconds", runProbeSeconds);
        positive("stream.maxReplayBytes", maxReplayBytes);
        positive("stream.maxPendingBytesPerClient", maxPendingBytesPerClient);
        positive("stream.maxActiveRuns", maxActiveRuns);
        positive("stream.maxActiveConnections", maxActiveConnections);
        positive("stream.heartbeatSeconds", heartbeatSeconds);
        positive("stream.maxPendingBytesTotal", maxPendingBytesTotal);
        if (maxPendingBytesTotal < maxPendingBytesPerClient) {
            throw new IllegalArgumentException("stream.maxPendingBytesTotal (" + maxPendingBytesTotal
                    + ") must be >= stream.maxPendingBytesPerClient (" + maxPendingBytesPerClient + ")");
        }
    }

    /**
     * The platform's defaults ({@code LogStreamSettings.defaults()}) but a 64 KiB slow-viewer budget per viewer
     * (the platform's 4 MiB, times 50,000 viewers, is 200 GiB), 256 MiB for all viewers, and a 25 s heartbeat.
     */
    public static StreamSettings defaults() {
        return new StreamSettings(Duration.ofSeconds(2), 1000, 20, MIB, 32 * MIB, 3600, 300, 10, 60, 10,
                256 * KIB, 64 * KIB, 200, 500, 25, 256 * MIB);
    }

    /** Poll threads: one per 25 runs of {@code maxActiveRuns}, clamped to 2–16. */
    public int pollThreads() {
        int wanted = (maxActiveRuns + RUNS_PER_POLL_THREAD - 1) / RUNS_PER_POLL_THREAD;
        return Math.max(MIN_POLL_THREADS, Math.min(MAX_POLL_THREADS, wanted));
    }

    /** These settings with other run and connection caps (benchmarks raise both). */
    public StreamSettings withCaps(int runs, int connections) {
        return new StreamSettings(poll, linesPerRead, maxReadsPerTick, maxBytesPerTick, maxStreamBytes,
                maxStreamSeconds, maxIdleSeconds, finishGraceSeconds, unknownRunGraceSeconds, runProbeSeconds,
                maxReplayBytes, maxPendingBytesPerClient, runs, connections, heartbeatSeconds, maxPendingBytesTotal);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
