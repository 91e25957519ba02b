package io.changestream.logs.engine;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every limit of the log stream ({@code stream.*}), each declared once as a {@link Setting} ({@link #SETTINGS}: key,
 * default, bound, meaning), with the platform's defaults ({@link #defaults()}). Immutable; validated at construction
 * with a message naming the setting. Read by any thread.
 *
 * @param poll                     {@link #POLL}: delay between two polls of one run; decimals allowed
 * @param linesPerRead             {@link #LINES_PER_READ}: lines per backend page
 * @param maxReadsPerTick          {@link #MAX_READS_PER_TICK}: backend pages per poll at most
 * @param maxBytesPerTick          {@link #MAX_BYTES_PER_TICK}: bytes read per poll at most
 * @param maxStreamBytes           {@link #MAX_STREAM_BYTES}: bytes of log frames one connection is sent before its
 *                                 own {@code complete maxBytes}
 * @param maxStreamSeconds         {@link #MAX_STREAM_SECONDS}: one connection's lifetime before its own
 *                                 {@code complete maxDuration} (a late joiner gets its own hour)
 * @param maxIdleSeconds           {@link #MAX_IDLE_SECONDS}: silence before {@code idleTimeout}
 * @param finishGraceSeconds       {@link #FINISH_GRACE_SECONDS}: silence after a finished run before
 *                                 {@code runFinished}
 * @param unknownRunGraceSeconds   {@link #UNKNOWN_RUN_GRACE_SECONDS}: silence of a run with no status row before
 *                                 {@code runFinished}
 * @param runProbeSeconds          {@link #RUN_PROBE_SECONDS}: run state looked up at most this often
 * @param maxReplayBytes           {@link #MAX_REPLAY_BYTES}: replay buffer per run for late joiners
 * @param maxPendingBytesPerClient {@link #MAX_PENDING_BYTES_PER_CLIENT}: unsent UTF-8 bytes a viewer may fall behind
 *                                 by; past it the viewer is sent {@code truncated} with the cursor of the last frame
 *                                 it was written and closed (it resumes from that cursor). A viewer with nothing
 *                                 pending always takes the next frame, however large
 * @param maxActiveRuns            {@link #MAX_ACTIVE_RUNS}: runs tailed at once; sizes the poll scheduler
 * @param maxActiveConnections     {@link #MAX_ACTIVE_CONNECTIONS}: open stream connections
 * @param heartbeatSeconds         {@link #HEARTBEAT_SECONDS}: interval of the {@code : heartbeat} comment
 * @param maxPendingBytesTotal     {@link #MAX_PENDING_BYTES_TOTAL}: unsent bytes of all viewers together; past it
 *                                 the viewers furthest behind are cut off the same way until the total is within;
 *                                 at least {@code maxPendingBytesPerClient}
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

    private static final String PREFIX = "stream.";
    private static final long KIB = 1024;
    private static final long MIB = KIB * KIB;

    public static final Setting<Duration> POLL = Setting.seconds(PREFIX + "pollSeconds")
            .defaultsTo(Duration.ofSeconds(2)).positive()
            .doc("delay between polls of a run (decimals allowed)");
    public static final Setting<Integer> LINES_PER_READ = Setting.integer(PREFIX + "linesPerRead").defaultsTo(1000)
            .positive().doc("lines per backend page");
    public static final Setting<Integer> MAX_READS_PER_TICK = Setting.integer(PREFIX + "maxReadsPerTick")
            .defaultsTo(20).positive().doc("pages per poll");
    public static final Setting<Long> MAX_BYTES_PER_TICK = Setting.number(PREFIX + "maxBytesPerTick")
            .defaultsTo(MIB).positive().doc("bytes per poll");
    public static final Setting<Long> MAX_STREAM_BYTES = Setting.number(PREFIX + "maxStreamBytes")
            .defaultsTo(32 * MIB).positive()
            .doc("bytes of log frames one connection is sent, then its own complete maxBytes");
    public static final Setting<Long> MAX_STREAM_SECONDS = Setting.number(PREFIX + "maxStreamSeconds")
            .defaultsTo(3600L).positive()
            .doc("one connection's lifetime, then its own complete maxDuration");
    public static final Setting<Long> MAX_IDLE_SECONDS = Setting.number(PREFIX + "maxIdleSeconds")
            .defaultsTo(300L).positive().doc("no new content, then idleTimeout");
    public static final Setting<Long> FINISH_GRACE_SECONDS = Setting.number(PREFIX + "finishGraceSeconds")
            .defaultsTo(10L).positive().doc("quiet after a finished run, then runFinished");
    public static final Setting<Long> UNKNOWN_RUN_GRACE_SECONDS = Setting.number(PREFIX + "unknownRunGraceSeconds")
            .defaultsTo(60L).positive()
            .doc("quiet of a run with no status row, then runFinished");
    public static final Setting<Long> RUN_PROBE_SECONDS = Setting.number(PREFIX + "runProbeSeconds")
            .defaultsTo(10L).positive().doc("run-state lookups at most this often");
    public static final Setting<Long> MAX_REPLAY_BYTES = Setting.number(PREFIX + "maxReplayBytes")
            .defaultsTo(256 * KIB).positive().doc("in-memory replay buffer per run");
    public static final Setting<Long> MAX_PENDING_BYTES_PER_CLIENT = Setting.number(PREFIX
            + "maxPendingBytesPerClient").defaultsTo(64 * KIB).positive()
            .doc("slow-viewer budget: unsent UTF-8 bytes a viewer may fall behind by before it is truncated");
    public static final Setting<Integer> MAX_ACTIVE_RUNS = Setting.integer(PREFIX + "maxActiveRuns").defaultsTo(200)
            .positive().doc("runs tailed at once (poll threads: one per 25, 2-16)");
    public static final Setting<Integer> MAX_ACTIVE_CONNECTIONS = Setting.integer(PREFIX + "maxActiveConnections")
            .defaultsTo(500).positive().doc("open stream connections");
    public static final Setting<Long> HEARTBEAT_SECONDS = Setting.number(PREFIX + "heartbeatSeconds")
            .defaultsTo(25L).positive().doc("heartbeat comment interval");
    public static final Setting<Long> MAX_PENDING_BYTES_TOTAL = Setting.number(PREFIX + "maxPendingBytesTotal")
            .defaultsTo(256 * MIB).positive()
            .doc("all viewers' unsent bytes together; must be >= maxPendingBytesPerClient");

    /** Every {@code stream.*} setting, in the order of the components. */
    public static final List<Setting<?>> SETTINGS = List.of(POLL, LINES_PER_READ, MAX_READS_PER_TICK,
            MAX_BYTES_PER_TICK, MAX_STREAM_BYTES, MAX_STREAM_SECONDS, MAX_IDLE_SECONDS, FINISH_GRACE_SECONDS,
            UNKNOWN_RUN_GRACE_SECONDS, RUN_PROBE_SECONDS, MAX_REPLAY_BYTES, MAX_PENDING_BYTES_PER_CLIENT,
            MAX_ACTIVE_RUNS, MAX_ACTIVE_CONNECTIONS, HEARTBEAT_SECONDS, MAX_PENDING_BYTES_TOTAL);

    private static final int RUNS_PER_POLL_THREAD = 25;
    private static final int MIN_POLL_THREADS = 2;
    private static final int MAX_POLL_THREADS = 16;

    public StreamSettings {
        POLL.check(poll);
        LINES_PER_READ.check(linesPerRead);
        MAX_READS_PER_TICK.check(maxReadsPerTick);
        MAX_BYTES_PER_TICK.check(maxBytesPerTick);
        MAX_STREAM_BYTES.check(maxStreamBytes);
        MAX_STREAM_SECONDS.check(maxStreamSeconds);
        MAX_IDLE_SECONDS.check(maxIdleSeconds);
        FINISH_GRACE_SECONDS.check(finishGraceSeconds);
        UNKNOWN_RUN_GRACE_SECONDS.check(unknownRunGraceSeconds);
        RUN_PROBE_SECONDS.check(runProbeSeconds);
        MAX_REPLAY_BYTES.check(maxReplayBytes);
        MAX_PENDING_BYTES_PER_CLIENT.check(maxPendingBytesPerClient);
        MAX_ACTIVE_RUNS.check(maxActiveRuns);
        MAX_ACTIVE_CONNECTIONS.check(maxActiveConnections);
        HEARTBEAT_SECONDS.check(heartbeatSeconds);
        MAX_PENDING_BYTES_TOTAL.check(maxPendingBytesTotal);
        if (maxPendingBytesTotal < maxPendingBytesPerClient) {
            throw new IllegalArgumentException(MAX_PENDING_BYTES_TOTAL.key() + " (" + maxPendingBytesTotal
                    + ") must be >= " + MAX_PENDING_BYTES_PER_CLIENT.key() + " (" + maxPendingBytesPerClient + ")");
        }
    }

    /**
     * The declared defaults: the platform's ({@code LogStreamSettings.defaults()}) but a 64 KiB slow-viewer budget
     * per viewer (the platform's 4 MiB, times 50,000 viewers, is 200 GiB), 256 MiB for all viewers, and a 25 s
     * heartbeat.
     */
    public static StreamSettings defaults() {
        return from(SettingsReader.of(Map.of()));
    }

    /** The {@code stream.*} settings {@code settings} gives, each absent one at its default. */
    public static StreamSettings from(SettingsReader settings) {
        return new StreamSettings(settings.get(POLL), settings.get(LINES_PER_READ), settings.get(MAX_READS_PER_TICK),
                settings.get(MAX_BYTES_PER_TICK), settings.get(MAX_STREAM_BYTES), settings.get(MAX_STREAM_SECONDS),
                settings.get(MAX_IDLE_SECONDS), settings.get(FINISH_GRACE_SECONDS),
                settings.get(UNKNOWN_RUN_GRACE_SECONDS), settings.get(RUN_PROBE_SECONDS),
                settings.get(MAX_REPLAY_BYTES), settings.get(MAX_PENDING_BYTES_PER_CLIENT),
                settings.get(MAX_ACTIVE_RUNS), settings.get(MAX_ACTIVE_CONNECTIONS), settings.get(HEARTBEAT_SECONDS),
                settings.get(MAX_PENDING_BYTES_TOTAL));
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
}
