package io.changestream.alerts.view;

import io.changestream.runtime.Backoff;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the reader thread of one {@link ViewReader} going: a reader that dies ({@link #exited}) is restarted after
 * {@code restartBackoff}, doubled per consecutive failure up to {@code restartMaxBackoff}; a reader that proves
 * itself ({@link #fresh}: it caught up) resets the count; after {@code maxRestarts} consecutive failures it is given
 * up and {@link #alive()} is false ({@code /health/live}). The restart runs on this supervisor's own daemon thread; a
 * restart that throws counts as a failure. Any thread.
 */
final class ReaderSupervisor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReaderSupervisor.class);

    private final String what;
    private final Duration restartBackoff;
    private final Duration restartMaxBackoff;
    private final int maxRestarts;
    private final Runnable restart;
    private final ScheduledExecutorService restarter;
    private final AtomicLong restarts = new AtomicLong();
    private int consecutiveFailures;
    private volatile boolean givenUp;
    private volatile boolean closed;

    /**
     * @param what              the reader, for logs and {@link #health} ({@code "subscriptions reader of t"})
     * @param restart           starts a new reader (called on the supervisor's thread); throwing is a failure
     */
    ReaderSupervisor(String what, Duration restartBackoff, Duration restartMaxBackoff, int maxRestarts,
                     Runnable restart) {
        this.what = Objects.requireNonNull(what, "what");
        this.restartBackoff = Objects.requireNonNull(restartBackoff, "restartBackoff");
        this.restartMaxBackoff = Objects.requireNonNull(restartMaxBackoff, "restartMaxBackoff");
        this.maxRestarts = maxRestarts;
        this.restart = Objects.requireNonNull(restart, "restart");
        this.restarter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "reader-restart");
            t.setDaemon(true);
            return t;
        });
    }

    /** The reader died of {@code failure}: schedules its restart, or gives it up. */
    synchronized void exited(Throwable failure) {
        if (closed) {
            return;
        }
        if (consecutiveFailures >= maxRestarts) {
            givenUp = true;
            LOG.error("{} died {} times in a row; given up, /health/live fails", what, consecutiveFailures + 1,
                    failure);
            return;
        }
        long delay = Backoff.doubling(restartBackoff, restartMaxBackoff).after(consecutiveFailures + 1).toMillis();
        consecutiveFailures++;
        LOG.warn("{} died; restart {} of at most {} in {} ms", what, consecutiveFailures, maxRestarts, delay,
                failure);
        restarter.schedule(this::restartNow, delay, TimeUnit.MILLISECONDS);
    }

    private void restartNow() {
        if (closed) {
            return;
        }
        try {
            restart.run();
            restarts.incrementAndGet();
        } catch (RuntimeException e) {
            exited(e);
        }
    }

    /** The reader caught up: its next death counts as the first in a row. */
    synchronized void fresh() {
        consecutiveFailures = 0;
    }

    /** False once the reader was given up. */
    boolean alive() {
        return !givenUp;
    }

    /** How many times a dead reader was restarted. */
    long restarts() {
        return restarts.get();
    }

    /** Why not alive, or null while alive. */
    String health() {
        return givenUp ? what + " given up after " + maxRestarts + " restarts" : null;
    }

    /** No restart starts after this; idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        restarter.shutdownNow();
    }
}
