package io.changestream.runtime.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The runtime-wide bound on asynchronous calls running at once ({@code maxCalls}): lane workers take a slot before a
 * call and give it back when the call completed or timed out. Non-blocking; thread-safe.
 */
final class CallSlots {

    private final int limit;
    private final AtomicInteger used = new AtomicInteger();

    CallSlots(int limit) {
        this.limit = limit;
    }

    /** Takes a slot if one is free. */
    boolean tryAcquire() {
        while (true) {
            int u = used.get();
            if (u >= limit) {
                return false;
            }
            if (used.compareAndSet(u, u + 1)) {
                return true;
            }
        }
    }

    void release() {
        used.decrementAndGet();
    }

    /** Any thread: whether no slot is free now. */
    boolean full() {
        return used.get() >= limit;
    }

    /** Any thread: calls running now. */
    int used() {
        return used.get();
    }
}
