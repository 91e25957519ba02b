package io.changestream.ops.service;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import sun.misc.Signal;

/**
 * Released by SIGTERM or SIGINT (Ctrl-C), or by {@link #release()}: what a long-running command waits for before it
 * stops its services gracefully. The signal handler only counts down; the waiting thread does the stopping.
 */
public final class StopSignal {

    private final CountDownLatch latch = new CountDownLatch(1);

    /** A stop signal that only {@link #release()} releases (tests). */
    public static StopSignal manual() {
        return new StopSignal();
    }

    /** A stop signal released by SIGTERM and SIGINT as well. */
    public static StopSignal onTermOrInt() {
        StopSignal stop = new StopSignal();
        Signal.handle(new Signal("TERM"), s -> stop.release());
        Signal.handle(new Signal("INT"), s -> stop.release());
        return stop;
    }

    /** Releases every waiter. Idempotent; safe from any thread, including a signal handler. */
    public void release() {
        latch.countDown();
    }

    /** True once released. */
    public boolean released() {
        return latch.getCount() == 0;
    }

    /** Waits until released. */
    public void await() throws InterruptedException {
        latch.await();
    }

    /** Waits until released or {@code timeout} passed; true when released. */
    public boolean await(Duration timeout) throws InterruptedException {
        return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
