package io.changestream.runtime.internal;

import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.Outcome;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One event on its way through the runtime (Parallel Consumer's work container): the polled record (its
 * {@link Event} is made by the lane, on its first attempt, so the consumer thread does not), the assignment it belongs
 * to, its routing key, and per-attempt state. Created by the consumer thread; after it is handed to a lane only that
 * lane's current worker thread writes it, except {@link #state}, which the timeout watchdog may move from RUNNING to
 * TIMED_OUT by compare-and-set (the watchdog reads {@link #event()} only after seeing RUNNING, so it is made).
 */
final class WorkItem<K, V> {

    static final int IDLE = 0;
    static final int RUNNING = 1;
    static final int TIMED_OUT = 2;

    private static final AtomicIntegerFieldUpdater<WorkItem> STATE =
            AtomicIntegerFieldUpdater.newUpdater(WorkItem.class, "state");

    final OwnedPartition partition;
    final Object routingKey;
    final long polledAtNanos;
    /** The lane index its routing key hashes to. */
    final int lane;
    /** Serialized key + value bytes, counted in the runtime's buffered bytes until the item leaves. */
    final int bytes;
    /** The running asynchronous call, for cancelling it on a timeout; null for a synchronous processor. */
    volatile CompletionStage<Outcome> call;
    /**
     * The record as polled, until the lane made its event from it; null when the event was made by the consumer thread
     * (a custom key function needs it). Worker thread only.
     */
    private ConsumerRecord<K, V> record;
    /** The event of the current attempt; made from {@link #record} on first use. */
    Event<K, V> event;
    /** Set once the event finally failed and the failure handler has not accepted it yet. */
    Failure failure;
    int handlerAttempts;
    /** Written before {@link #state} turns RUNNING and read after seeing it RUNNING: the volatile publishes it. */
    long startedAtMillis;
    /** IDLE (0, the default: no volatile store per new item), RUNNING or TIMED_OUT. */
    private volatile int state;

    WorkItem(Event<K, V> event, OwnedPartition partition, Object routingKey, int lane, long polledAtNanos, int bytes) {
        this(null, event, partition, routingKey, lane, polledAtNanos, bytes);
    }

    /** An item whose event the lane makes from {@code record} on its first attempt. */
    WorkItem(ConsumerRecord<K, V> record, OwnedPartition partition, Object routingKey, int lane, long polledAtNanos,
             int bytes) {
        this(record, null, partition, routingKey, lane, polledAtNanos, bytes);
    }

    private WorkItem(ConsumerRecord<K, V> record, Event<K, V> event, OwnedPartition partition, Object routingKey,
                     int lane, long polledAtNanos, int bytes) {
        this.record = record;
        this.event = event;
        this.bytes = bytes;
        this.lane = lane;
        this.partition = partition;
        this.routingKey = routingKey;
        this.polledAtNanos = polledAtNanos;
    }

    /** The event of the current attempt (worker thread; the watchdog only for a running attempt). */
    Event<K, V> event() {
        Event<K, V> e = event;
        if (e == null) {
            ConsumerRecord<K, V> r = record;
            e = new Event<>(r.topic(), r.partition(), r.offset(), r.key(), r.value(), r.headers(), r.timestamp(),
                    r.timestampType(), 1);
            event = e;
            record = null; // the event holds what the processor needs; the polled record need not stay reachable
        }
        return e;
    }

    /**
     * Worker thread: an attempt starts now. A release store (no fence): the watchdog that sees RUNNING sees the start
     * time, and one that sees the attempt a moment late times it out a moment late.
     */
    void begin(long nowMillis) {
        startedAtMillis = nowMillis;
        STATE.lazySet(this, RUNNING);
    }

    /** Worker thread: the attempt returned; false if the watchdog had already timed it out. */
    boolean finish() {
        return STATE.compareAndSet(this, RUNNING, IDLE);
    }

    /** Watchdog: claims a running attempt that ran too long; true for exactly one of finish/timeOut. */
    boolean timeOut() {
        return STATE.compareAndSet(this, RUNNING, TIMED_OUT);
    }

    boolean running() {
        return state == RUNNING;
    }
}
