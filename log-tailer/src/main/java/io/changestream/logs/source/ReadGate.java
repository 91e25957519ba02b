package io.changestream.logs.source;

import java.util.concurrent.Semaphore;

/**
 * The concurrency cap of one backend's reads ({@link ReadLimits#maxConcurrentReads()}), shared by every source of
 * that backend: a read takes a permit without waiting (a poll thread never blocks on it) or fails with
 * {@link ReadLimitException.Busy}. Thread-safe.
 */
public final class ReadGate {

    private final ReadLimits limits;
    private final Semaphore permits;

    /** A gate for {@code limits}. */
    public ReadGate(ReadLimits limits) {
        this.limits = limits;
        this.permits = new Semaphore(limits.maxConcurrentReads());
    }

    /** The limits this gate enforces. */
    public ReadLimits limits() {
        return limits;
    }

    /** Takes a permit; release it with {@link #exit()}. */
    public void enter() throws ReadLimitException.Busy {
        if (!permits.tryAcquire()) {
            throw new ReadLimitException.Busy("All " + limits.maxConcurrentReads() + " reads of the " + limits.kind()
                    + " backend are in flight (" + limits.kind() + ".maxConcurrentReads = "
                    + limits.maxConcurrentReads() + "); retry shortly.");
        }
    }

    /** Gives a permit back. */
    public void exit() {
        permits.release();
    }

    /** Reads in flight now. */
    public int inFlight() {
        return limits.maxConcurrentReads() - permits.availablePermits();
    }
}
