package io.changestream.runtime.internal;

import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the runtime's timer thread: hands parked keys back to their lanes when they are due, and times out processor
 * attempts that run past the processing timeout (the lane gets a new worker thread; see {@link LaneLoop}).
 */
final class TimerLoop implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(TimerLoop.class);
    /** Longest the timer sleeps between timeout checks. */
    static final long MAX_TICK_MILLIS = 100;

    private final DelayScheduler delays;
    private final List<? extends LaneLoop<?, ?>> lanes;
    private final Clock clock;
    private final long tickMillis;
    private volatile boolean stopped;

    TimerLoop(DelayScheduler delays, List<? extends LaneLoop<?, ?>> lanes, Clock clock, long processingTimeoutMillis) {
        this.delays = delays;
        this.lanes = lanes;
        this.clock = clock;
        this.tickMillis = Math.max(1, Math.min(MAX_TICK_MILLIS, processingTimeoutMillis / 10));
    }

    @Override
    public void run() {
        while (!stopped) {
            try {
                long now = tick();
                delays.awaitNext(now, tickMillis);
            } catch (InterruptedException e) {
                if (stopped) {
                    return;
                }
            } catch (RuntimeException e) {
                LOG.error("timer tick failed; continuing", e);
            }
        }
    }

    /** One pass: releases due keys and times out overdue attempts; returns the clock reading it used. */
    long tick() {
        long now = clock.millis();
        for (DelayScheduler.Due due : delays.takeDue(now)) {
            lanes.get(due.lane()).release(due.key(), due.token()); // lanes are listed by index
        }
        for (LaneLoop<?, ?> lane : lanes) {
            lane.checkTimeout(now);
        }
        return now;
    }

    void stop(Thread thread) {
        stopped = true;
        thread.interrupt();
    }
}
