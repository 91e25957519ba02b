package io.changestream.runtime.internal;

import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's periodic INFO line ({@code statsLogInterval}): records polled and attempts finished per second since
 * the last line, the deepest lane with its depth, the key with the most events waiting behind its running or parked
 * head during the interval (the hot key: logged here at most once per interval, never a meter tag), the delay queue,
 * asynchronous calls, buffered bytes and the heap. Run by the engine's supervisor thread; {@link #line} only reads
 * volatile and thread-safe state.
 */
final class StatsLog implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StatsLog.class);
    /** A logged key is cut to this many characters (keys are the processor's, of any length). */
    static final int KEY_CHARS = 100;
    private static final double MIB = 1024.0 * 1024.0;

    private final String group;
    private final List<? extends LaneLoop<?, ?>> lanes;
    private final int laneCapacity;
    private final DelayScheduler delays;
    private final int delayQueueCapacity;
    private final CallSlots calls;
    private final int maxCalls;
    private final LongAdder bufferedBytes;
    private final long maxBufferedBytes;
    private final RuntimeMetrics metrics;
    private final Clock clock;
    private long lastMillis;
    private long lastPolled;
    private long lastAttempts;

    StatsLog(String group, List<? extends LaneLoop<?, ?>> lanes, int laneCapacity, DelayScheduler delays,
             int delayQueueCapacity, CallSlots calls, int maxCalls, LongAdder bufferedBytes, long maxBufferedBytes,
             RuntimeMetrics metrics, Clock clock) {
        this.group = group;
        this.lanes = lanes;
        this.laneCapacity = laneCapacity;
        this.delays = delays;
        this.delayQueueCapacity = delayQueueCapacity;
        this.calls = calls;
        this.maxCalls = maxCalls;
        this.bufferedBytes = bufferedBytes;
        this.maxBufferedBytes = maxBufferedBytes;
        this.metrics = metrics;
        this.clock = clock;
        this.lastMillis = clock.millis();
    }

    @Override
    public void run() {
        try {
            LOG.info(line());
        } catch (RuntimeException e) {
            LOG.warn("runtime stats line of group {} failed", group, e);
        }
    }

    /** The line for the interval since the previous call (one caller at a time). */
    synchronized String line() {
        long now = clock.millis();
        double seconds = Math.max(0.001, (now - lastMillis) / 1000.0);
        long polled = (long) metrics.polled.count();
        long attempts = metrics.attempts();
        long polledDelta = polled - lastPolled;
        long attemptDelta = attempts - lastAttempts;
        lastMillis = now;
        lastPolled = polled;
        lastAttempts = attempts;
        int deepestLane = deepestLane(lanes);
        int depth = deepestLane < 0 ? 0 : lanes.get(deepestLane).lane.depth();
        LaneLoop.HotKey hot = null;
        for (LaneLoop<?, ?> lane : lanes) {
            LaneLoop.HotKey h = lane.takeHottest();
            if (h != null && (hot == null || h.waiting() > hot.waiting())) {
                hot = h;
            }
        }
        Runtime jvm = Runtime.getRuntime();
        long heapUsed = jvm.totalMemory() - jvm.freeMemory();
        long buffered = bufferedBytes.sum();
        return String.format(Locale.ROOT, "runtime stats of group %s over %.0f s: polled %d (%.1f/s), attempts %d "
                        + "(%.1f/s); deepest lane %d holds %d of %d; hot key %s; delay queue %d of %d; calls %d of %d; "
                        + "buffered %.1f of %.1f MiB (%.1f %%); heap %.1f of %.1f MiB",
                group, seconds, polledDelta, polledDelta / seconds, attemptDelta, attemptDelta / seconds,
                Math.max(0, deepestLane), depth, laneCapacity, hotKey(hot), delays.size(),
                delayQueueCapacity, calls.used(), maxCalls, buffered / MIB, maxBufferedBytes / MIB,
                100.0 * buffered / maxBufferedBytes, heapUsed / MIB, jvm.maxMemory() / MIB);
    }

    private static String hotKey(LaneLoop.HotKey hot) {
        if (hot == null || hot.waiting() <= 0) {
            return "none";
        }
        String key = String.valueOf(hot.key());
        if (key.length() > KEY_CHARS) {
            key = key.substring(0, KEY_CHARS) + "…";
        }
        return "'" + key + "' (" + hot.waiting() + " waiting behind it, lane " + hot.lane() + ")";
    }

    /** Any thread: the index of the lane holding the most events (queued + waiting behind busy keys), -1 for none. */
    static int deepestLane(List<? extends LaneLoop<?, ?>> lanes) {
        int best = -1;
        int depth = -1;
        for (int i = 0; i < lanes.size(); i++) {
            int d = lanes.get(i).lane.depth();
            if (d > depth) {
                depth = d;
                best = i;
            }
        }
        return best;
    }

    /** Any thread: the deepest lane's depth, 0 without lanes. */
    static int deepestDepth(List<? extends LaneLoop<?, ?>> lanes) {
        int depth = 0;
        for (LaneLoop<?, ?> lane : lanes) {
            depth = Math.max(depth, lane.lane.depth());
        }
        return depth;
    }
}
