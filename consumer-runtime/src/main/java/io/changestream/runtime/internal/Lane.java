package io.changestream.runtime.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * One KeyBy lane's bounded FIFO: consumer threads offer work items (never blocking: a full lane refuses), the lane's
 * worker drains them in order. A second, unbounded-by-count but small queue carries control signals (a parked key is
 * due, purge revoked work) that the worker takes before items.
 */
final class Lane<K, V> {

    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<WorkItem<K, V>> items;
    private final ArrayDeque<Object> signals = new ArrayDeque<>();
    private volatile int size;
    /** Worker-written: events waiting behind a key with an asynchronous call running; they use the lane's room. */
    private volatile int behind;

    Lane(int capacity) {
        this.capacity = capacity;
        this.items = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    /**
     * Consumer thread: appends the longest prefix of {@code batch} that fits; returns how many were taken. A refused
     * suffix stays with the caller, so per-key order holds.
     */
    int offer(List<WorkItem<K, V>> batch) {
        lock.lock();
        try {
            int free = Math.max(0, capacity - items.size() - behind);
            int n = Math.min(free, batch.size());
            for (int i = 0; i < n; i++) {
                items.addLast(batch.get(i));
            }
            if (n > 0) {
                size = items.size();
                ready.signal();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Consumer thread: appends one item if it fits. */
    boolean offer(WorkItem<K, V> item) {
        return offer(List.of(item)) == 1;
    }

    /** Any thread: queues a control signal for the worker. */
    void signal(Object signal) {
        lock.lock();
        try {
            signals.addLast(signal);
            ready.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Worker thread: moves pending signals, then up to {@code max} items, to the end of {@code into}; waits up to
     * {@code waitMillis} when there is nothing. Returns how many entries were moved.
     */
    int drainTo(Deque<Object> into, int max, long waitMillis) throws InterruptedException {
        lock.lock();
        try {
            if (items.isEmpty() && signals.isEmpty() && waitMillis > 0) {
                ready.await(waitMillis, TimeUnit.MILLISECONDS);
            }
            int moved = signals.size();
            into.addAll(signals);
            signals.clear();
            for (int i = 0; i < max && !items.isEmpty(); i++, moved++) {
                into.addLast(items.pollFirst());
            }
            size = items.size();
            return moved;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Worker thread at a call limit: moves pending signals only to {@code into}, waiting up to {@code waitMillis}
     * when there is none. Items stay queued.
     */
    void drainSignals(Deque<Object> into, long waitMillis) throws InterruptedException {
        lock.lock();
        try {
            if (signals.isEmpty() && waitMillis > 0) {
                ready.await(waitMillis, TimeUnit.MILLISECONDS);
            }
            into.addAll(signals);
            signals.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Any thread: removes queued items matching {@code drop}; returns how many. */
    int removeIf(Predicate<WorkItem<K, V>> drop) {
        lock.lock();
        try {
            int before = items.size();
            items.removeIf(drop);
            size = items.size();
            return before - size;
        } finally {
            lock.unlock();
        }
    }

    /** Worker thread: {@code delta} more (or fewer) events wait behind busy keys. */
    @SuppressWarnings("NonAtomicOperationOnVolatileField") // one writer: the lane's worker
    void behind(int delta) {
        behind += delta;
    }

    /** Any thread: items queued (not counting the ones its worker holds). */
    int size() {
        return size;
    }

    /** Any thread: events this lane holds against its capacity: queued plus waiting behind busy keys. */
    int depth() {
        return size + behind;
    }

    int capacity() {
        return capacity;
    }
}
