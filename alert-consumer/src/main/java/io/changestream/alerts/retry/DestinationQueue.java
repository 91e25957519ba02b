package io.changestream.alerts.retry;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * One destination's records on one {@code alert-retry} partition, in offset order (issue 21 item 7): at most
 * {@code retry.maxHeldPerDestination} of them in memory; the rest stay on the topic from {@link #leftFrom()} on and
 * are read again by {@link RetryLoop} when there is room. So a destination with a million parked pairs holds no more
 * memory than one with a thousand, and nobody else's records wait behind them.
 *
 * <p>Up to {@code retry.maxConcurrentPerDestination} records are tried at once ({@link #claim}), in order per entity:
 * a record starts only when no earlier record of its entity (its {@link RetryRecord#orderKey()}) is unsettled, and a
 * record without an order key (written before there was one) starts only alone, after every earlier one settled. A
 * try that does not settle pauses the whole queue until its due time (the destination's trouble — Retry-After,
 * suspension, an outage — holds its own records, as the head did when one record went at a time). Records may
 * settle out of order; {@link #finished} says how far they settled without a gap, the destination's drained
 * progress (the ones settled above it are published too, at most {@link DestinationStates#MAX_SETTLED_ABOVE}: past
 * that only the first unsettled record starts). The loop thread offers and refills, workers claim and finish.
 * Synchronized (both threads).
 */
final class DestinationQueue {

    /** Records looked at per {@link #claim}, from the first unsettled one. */
    private static final int SCAN = 1_024;

    /** One record in memory with its progress between tries; its flags are guarded by the queue. */
    static final class Held {
        private final long offset;
        private final RetryRecord record;
        private final RetryProcessor.Progress progress;
        private boolean running;
        private boolean settled;

        Held(long offset, RetryRecord record) {
            this.offset = offset;
            this.record = record;
            this.progress = new RetryProcessor.Progress(record);
        }

        long offset() {
            return offset;
        }

        RetryRecord record() {
            return record;
        }

        RetryProcessor.Progress progress() {
            return progress;
        }
    }

    private final TopicPartition partition;
    private final String destination;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The offset from which the destination's records are not held but left on the topic; -1: none left. */
    private long leftFrom = -1;
    private int running;
    private int unsettled;
    private long dueAt;
    private String reason;
    private volatile boolean released;
    /** The tries running now, cancellable by a release until they end. */
    private final Set<CompletableFuture<?>> tries = ConcurrentHashMap.newKeySet();

    DestinationQueue(TopicPartition partition, String destination) {
        this.partition = partition;
        this.destination = destination;
    }

    TopicPartition partition() {
        return partition;
    }

    String destination() {
        return destination;
    }

    /**
     * The loop read a new record of the destination: it is held, or left on the topic (returns false) when records
     * before it are left there, the queue holds {@code max}, or it is not the head and {@code room} says the
     * instance's memory bound is reached.
     */
    synchronized boolean offer(long offset, RetryRecord record, int max, boolean room) {
        if (leftFrom >= 0) {
            return false;
        }
        if (held.size() >= max || (!room && unsettled > 0)) {
            leftFrom = offset;
            return false;
        }
        add(offset, record);
        return true;
    }

    /** A record read again from {@link #leftFrom()}: held, in order. */
    synchronized void refilled(long offset, RetryRecord record) {
        add(offset, record);
    }

    private void add(long offset, RetryRecord record) {
        held.add(new Held(offset, record));
        unsettled++;
    }

    /** Where the records left on the topic start now ({@code -1}: none left). */
    synchronized long leftFrom() {
        return leftFrom;
    }

    /** The re-read got this far: the next record left on the topic is at or after {@code offset} ({@code -1}: none). */
    synchronized void leftFrom(long offset) {
        leftFrom = offset;
    }

    /** Records held in memory (settled ones behind an unsettled head included until it settles). */
    synchronized int size() {
        return held.size();
    }

    /** The lowest offset of the destination not settled: the head, else the first left on the topic, else -1. */
    synchronized long firstOffset() {
        return held.isEmpty() ? leftFrom : held.peekFirst().offset();
    }

    /** The first record not settled, or null. */
    synchronized Held head() {
        return held.peekFirst();
    }

    /**
     * The records to try now, at most {@code max} running at once, each marked running: none while the queue waits
     * for a due time or its partition is released; else, from the head, each record whose entity has no earlier
     * unsettled record (a record without an order key only as the head, alone).
     */
    synchronized List<Held> claim(long now, int max) {
        return claim(now, max, 0);
    }

    /**
     * As {@link #claim(long, int)}, where {@code settledAbove} offsets of the destination are published as settled
     * above its drained progress on this partition (by this queue or an earlier owner's): while they and the running
     * tries reach {@link DestinationStates#MAX_SETTLED_ABOVE}, only the first unsettled record starts.
     */
    synchronized List<Held> claim(long now, int max, int settledAbove) {
        if (released || dueAt > now || running >= max || held.isEmpty()) {
            return List.of();
        }
        List<Held> out = new ArrayList<>(Math.min(4, max - running));
        Set<String> blocked = new HashSet<>();
        // the offsets settled behind an unsettled one are published whole: past the bound only the first may go
        int known = Math.max(held.size() - unsettled, settledAbove);
        boolean first = true;
        int seen = 0;
        for (Held h : held) {
            if (running >= max || ++seen > SCAN) {
                break;
            }
            if (h.settled) {
                continue;
            }
            String key = h.record.orderKey();
            if (key == null) {
                if (first && running == 0) {
                    start(h, out);
                }
                break; // nothing after it starts before it settled
            }
            if (!first && known + running >= DestinationStates.MAX_SETTLED_ABOVE) {
                break;
            }
            first = false;
            if (!h.running && blocked.add(key)) {
                start(h, out);
            } else {
                blocked.add(key);
            }
        }
        return out;
    }

    private void start(Held h, List<Held> out) {
        h.running = true;
        running++;
        out.add(h);
    }

    /**
     * A try ended. Settled: the record is done and, when it was the first unsettled one, the records settled without
     * a gap from it leave the queue; returns the highest offset so settled (the destination's drained progress on
     * this partition), or -1 when the head did not move. Not settled: the queue waits until {@code at}.
     */
    synchronized long finished(Held h, boolean settledNow, long at, String why) {
        if (h.running) {
            h.running = false;
            running--;
        }
        if (!settledNow) {
            dueAt = Math.max(dueAt, at);
            reason = why;
            return -1;
        }
        if (!h.settled) {
            h.settled = true;
            unsettled--;
        }
        reason = null;
        long drained = -1;
        while (!held.isEmpty() && held.peekFirst().settled) {
            drained = held.pollFirst().offset;
        }
        return drained;
    }

    /** Whether nothing of the destination is held or left here (and no try runs): the queue can go. */
    synchronized boolean empty() {
        return held.isEmpty() && leftFrom < 0 && running == 0;
    }

    /** Tries running now. */
    synchronized int running() {
        return running;
    }

    /** Records held and not settled. */
    synchronized int unsettled() {
        return unsettled;
    }

    synchronized long dueAt() {
        return dueAt;
    }

    synchronized String reason() {
        return reason;
    }

    /** Its partition went to another owner: no new try starts. */
    void release() {
        released = true;
    }

    boolean released() {
        return released;
    }

    /** Keeps a running try cancellable by {@link #cancelRunning} until it ends. */
    void track(CompletableFuture<?> step) {
        tries.add(step);
        step.whenComplete((s, e) -> tries.remove(step));
    }

    /** Cancels the tries still running (a cancelled try aborts its send); returns how many. */
    int cancelRunning() {
        int n = 0;
        for (CompletableFuture<?> step : List.copyOf(tries)) {
            if (step.cancel(true)) {
                n++;
            }
        }
        return n;
    }
}
