package io.changestream.runtime.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The delay queue's clock side: when each parked key is due again. The parked events themselves stay with their
 * lane (so a key's later events queue behind its parked one); this holds one entry per park, ordered by due time,
 * and counts every waiting event (heads and the events behind them) for backpressure. Lane workers schedule; the
 * timer thread releases due entries to their lanes.
 */
final class DelayScheduler {

    /**
     * A parked key of a lane (its index, the timer's position of it) is due at {@code atMillis}; {@code token} tells a
     * current park from a stale one.
     */
    record Due(long atMillis, long seq, int lane, Object key, long token) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Due> queue = new PriorityQueue<>(
            Comparator.comparingLong(Due::atMillis).thenComparingLong(Due::seq));
    private final AtomicInteger waiting = new AtomicInteger();
    private long seq;

    /**
     * Lane worker: {@code key} of the lane with index {@code lane} is due at {@code atMillis} (epoch millis of the
     * runtime's clock).
     */
    void schedule(long atMillis, int lane, Object key, long token) {
        lock.lock();
        try {
            Due due = new Due(atMillis, seq++, lane, key, token);
            queue.add(due);
            if (queue.peek() == due) {
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Timer thread: removes the entries due at {@code nowMillis} and returns them in due order. */
    List<Due> takeDue(long nowMillis) {
        lock.lock();
        try {
            List<Due> due = new ArrayList<>();
            while (!queue.isEmpty() && queue.peek().atMillis() <= nowMillis) {
                due.add(queue.poll());
            }
            return due;
        } finally {
            lock.unlock();
        }
    }

    /** Timer thread: waits until an earlier entry is scheduled, {@code nowMillis} reaches the next due, or the cap. */
    void awaitNext(long nowMillis, long capMillis) throws InterruptedException {
        lock.lock();
        try {
            long wait = capMillis;
            if (!queue.isEmpty()) {
                wait = Math.min(wait, queue.peek().atMillis() - nowMillis);
            }
            if (wait > 0) {
                changed.await(wait, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Lane worker: {@code n} more events wait (parked or behind a parked one). */
    void added(int n) {
        waiting.addAndGet(n);
    }

    /** Lane worker: {@code n} events stopped waiting. */
    void removed(int n) {
        waiting.addAndGet(-n);
    }

    /** Any thread: events waiting; the delay queue's size. */
    int size() {
        return waiting.get();
    }
}
