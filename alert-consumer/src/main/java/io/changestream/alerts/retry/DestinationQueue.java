package io.changestream.alerts.retry;

import java.util.ArrayDeque;
import org.apache.kafka.common.TopicPartition;

/**
 * One destination's records on one {@code alert-retry} partition, in offset order (issue 21 item 7): at most
 * {@code retry.maxHeldPerDestination} of them in memory; the rest stay on the topic from {@link #leftFrom()} on and
 * are read again by {@link RetryLoop} when there is room. So a destination with a million parked pairs holds no more
 * memory than one with a thousand, and nobody else's records wait behind them. The loop thread offers and refills;
 * one worker at a time {@linkplain #claim claims} it and tries its head. Synchronized (both threads).
 */
final class DestinationQueue {

    /** One record in memory with its progress between tries. */
    record Held(long offset, RetryRecord record, RetryProcessor.Progress progress) {
    }

    private final TopicPartition partition;
    private final String destination;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The offset from which the destination's records are not held but left on the topic; -1: none left. */
    private long leftFrom = -1;
    private boolean claimed;
    private long dueAt;
    private String reason;
    private volatile boolean released;

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
        if (held.size() >= max || (!room && !held.isEmpty())) {
            leftFrom = offset;
            return false;
        }
        held.add(new Held(offset, record, new RetryProcessor.Progress(record)));
        return true;
    }

    /** A record read again from {@link #leftFrom()}: held, in order. */
    synchronized void refilled(long offset, RetryRecord record) {
        held.add(new Held(offset, record, new RetryProcessor.Progress(record)));
    }

    /** Where the records left on the topic start now ({@code -1}: none left). */
    synchronized long leftFrom() {
        return leftFrom;
    }

    /** The re-read got this far: the next record left on the topic is at or after {@code offset} ({@code -1}: none). */
    synchronized void leftFrom(long offset) {
        leftFrom = offset;
    }

    /** Records held in memory. */
    synchronized int size() {
        return held.size();
    }

    /** The lowest offset of the destination not settled: the head, else the first left on the topic, else -1. */
    synchronized long firstOffset() {
        return held.isEmpty() ? leftFrom : held.peekFirst().offset();
    }

    /** The head, or null. */
    synchronized Held head() {
        return held.peekFirst();
    }

    /** Its head settled: the next record may go. */
    synchronized void settled(Held head) {
        if (held.peekFirst() == head) {
            held.pollFirst();
        }
    }

    /** Whether nothing of the destination is held or left here (and no worker has it): the queue can go. */
    synchronized boolean empty() {
        return held.isEmpty() && leftFrom < 0 && !claimed;
    }

    /** A worker takes it when its head is due and nobody has it. */
    synchronized boolean claim(long now) {
        if (claimed || released || held.isEmpty() || dueAt > now) {
            return false;
        }
        claimed = true;
        return true;
    }

    /** The worker is done with it for now; its head is tried again at {@code at}. */
    synchronized void unclaim(long at, String why) {
        claimed = false;
        dueAt = at;
        reason = why;
    }

    synchronized boolean claimed() {
        return claimed;
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
}
