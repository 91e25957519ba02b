package io.changestream.cdc.engine;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.metrics.CdcMetrics;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the connector's long-lived threads (the capture loop, the lease) running: a thread whose body throws or
 * returns before {@link #close()} is counted ({@code cdc_thread_restarts_total{thread}}), logged once with its cause,
 * and started again after the restart backoff. After {@code thread.max.restarts} consecutive deaths (the count resets
 * once a thread ran longer than the backoff cap) it gives up and {@link #live()} turns false, so
 * {@code /health/live} fails and the orchestrator restarts the process. Each supervised body runs on its own thread;
 * the restart waits on that same thread, so no extra thread is needed. Any thread may call {@link #live()}.
 */
final class Supervisor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);

    private final CdcConfig.Backoff backoff;
    private final int maxRestarts;
    private final CdcMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private volatile boolean closing;
    private volatile String failed;

    Supervisor(CdcConfig.Backoff backoff, int maxRestarts, CdcMetrics metrics) {
        this.backoff = backoff;
        this.maxRestarts = maxRestarts;
        this.metrics = metrics;
    }

    /** Starts {@code body} on thread {@code cdc-<role>}, restarting it (on the same thread) when it dies. */
    Thread start(String role, Runnable body) {
        Thread thread = new Thread(() -> keepRunning(role, body), "cdc-" + role);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** False once a supervised thread died more often in a row than {@code thread.max.restarts} allows. */
    boolean live() {
        return failed == null;
    }

    /** Why {@link #live()} is false (null while live). */
    String failure() {
        return failed;
    }

    private void keepRunning(String role, Runnable body) {
        int deaths = 0;
        while (!closing) {
            long started = System.nanoTime();
            Throwable cause = null;
            try {
                body.run();
            } catch (Throwable t) {
                cause = t;
            }
            if (closing) {
                return;
            }
            if (System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(backoff.maxMs())) {
                deaths = 0;
            }
            deaths++;
            metrics.threadRestarted(role);
            if (deaths > maxRestarts) {
                failed = "thread cdc-" + role + " died " + deaths + " times in a row (thread.max.restarts="
                        + maxRestarts + "), last: " + cause;
                LOG.error("{}: not restarting it; /health/live fails", failed, cause);
                return;
            }
            long delay = backoff.delayMs(deaths, ThreadLocalRandom.current().nextDouble());
            LOG.error("thread cdc-{} died ({} of at most {} restarts in a row); restarting in {} ms", role, deaths,
                    maxRestarts, delay, cause == null ? new IllegalStateException("returned before close") : cause);
            if (!pause(delay)) {
                return;
            }
        }
    }

    /** Waits {@code millis} unless closed first; false when closed. */
    private boolean pause(long millis) {
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            long left;
            while (!closing && (left = deadline - System.nanoTime()) > 0) {
                stopped.awaitNanos(left);
            }
            return !closing;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Marks the supervisor closing (a body returning now is a normal stop); callers stop the bodies, then join. */
    void closing() {
        closing = true;
        lock.lock();
        try {
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closing();
    }
}
