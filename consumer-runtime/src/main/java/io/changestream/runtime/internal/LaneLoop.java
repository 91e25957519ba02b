package io.changestream.runtime.internal;

import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.RetriableException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one lane's processor thread: takes the lane's events in FIFO order, calls the processor, and acts on the
 * outcome (done, park for a retry or a not-before time, or hand a final failure to the failure handler). Keeps the
 * lane's parked keys: while a key is parked, its later events wait behind it in a chain, so per-key order holds
 * across retries; other keys go on.
 *
 * <p>Exactly one worker thread at a time owns the lane state ({@link #inHand}, {@link #parked}). When an attempt
 * runs past the processing timeout the timer thread claims it (a compare-and-set on the work item), interrupts the
 * stuck thread and starts a new worker, which fails the timed-out event and carries on; the old thread, when it
 * returns, loses the compare-and-set and exits without touching the lane.
 */
final class LaneLoop<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(LaneLoop.class);
    /** Events a worker takes from the lane in one lock acquisition. */
    static final int DRAIN_BATCH = 256;
    /** How long an idle worker waits on its lane before checking for stop. */
    static final long IDLE_WAIT_MILLIS = 100;
    private static final Object PURGE = new Object();
    private static final Object WAKE = new Object();

    /** The result of one attempt. */
    enum Step { DONE, PARKED, DROPPED, ABANDONED }

    /** Timer → worker: a parked key is due. */
    private record Release(Object key, long token) {
    }

    final int index;
    final Lane<K, V> lane;
    private final Processing<K, V> ctx;
    private final RandomGenerator random;
    private final String threadPrefix;
    private final ArrayDeque<Object> inHand = new ArrayDeque<>();
    private final Map<Object, Chain<K, V>> parked = new ConcurrentHashMap<>();
    private volatile Thread worker;
    private volatile WorkItem<K, V> current;
    private volatile boolean stopping;
    private int generation;

    LaneLoop(int index, Lane<K, V> lane, Processing<K, V> ctx, RandomGenerator random, String threadPrefix) {
        this.index = index;
        this.lane = lane;
        this.ctx = ctx;
        this.random = random;
        this.threadPrefix = threadPrefix;
    }

    void start() {
        startWorker(null);
    }

    private synchronized void startWorker(WorkItem<K, V> timedOut) {
        Thread t = new Thread(() -> run(timedOut), threadPrefix + "-lane-" + index + "-" + generation++);
        t.setDaemon(true);
        worker = t;
        t.start();
    }

    /** Timer thread: a parked key is due; the worker re-attempts it. */
    void release(Object key, long token) {
        lane.signal(new Release(key, token));
    }

    /** Consumer thread after a revoke: the worker drops the revoked partitions' events it holds or parked. */
    void purgeRevoked() {
        int n = lane.removeIf(item -> {
            if (item.partition.revoked) {
                ctx.assigner().release(item.routingKey, item.lane);
                return true;
            }
            return false;
        });
        ctx.metrics().dropped.increment(n);
        lane.signal(PURGE);
    }

    /** Timer thread: times out the running attempt if it started more than the timeout before {@code nowMillis}. */
    void checkTimeout(long nowMillis) {
        WorkItem<K, V> item = current;
        if (item != null && item.running() && nowMillis - item.startedAtMillis > ctx.processingTimeoutMillis()
                && item.timeOut()) {
            Thread stuck = worker;
            LOG.warn("{} ran longer than {} ms on {}; interrupting it and giving the lane a new thread",
                    item.event.coordinates(), ctx.processingTimeoutMillis(), stuck.getName());
            ctx.metrics().timedOutThreads.increment();
            stuck.interrupt();
            startWorker(item);
        }
    }

    /** Stops the worker after its current event; waits up to {@code timeoutMillis}, then interrupts it. */
    void stop(long timeoutMillis) throws InterruptedException {
        stopping = true;
        lane.signal(WAKE);
        Thread t = worker;
        t.join(Math.max(1, timeoutMillis));
        if (t.isAlive()) {
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(1));
        }
    }

    /** Any thread: parked keys of this lane, at most {@code limit}. */
    List<ParkedKeyView> parkedKeys(int limit) {
        List<ParkedKeyView> out = new ArrayList<>();
        for (Map.Entry<Object, Chain<K, V>> e : parked.entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            Chain<K, V> c = e.getValue();
            out.add(new ParkedKeyView(index, String.valueOf(e.getKey()), c.topic, c.partition, c.offset, c.attempt,
                    Instant.ofEpochMilli(c.dueMillis), c.reason, Math.max(0, c.size - 1)));
        }
        return out;
    }

    /** Any thread: how many keys of this lane are parked. */
    int parkedKeyCount() {
        return parked.size();
    }

    /** What the status view shows of one parked key. */
    record ParkedKeyView(int lane, String key, String topic, int partition, long offset, int attempt,
                         Instant notBefore, String reason, int waitingBehind) {
    }

    // ---- worker thread ----

    private void run(WorkItem<K, V> timedOut) {
        Thread me = Thread.currentThread();
        if (timedOut != null && !afterTimeout(timedOut)) {
            return;
        }
        while (worker == me && !stopping) {
            try {
                Object next = inHand.pollFirst();
                if (next == null) {
                    drain();
                } else if (!handle(next)) {
                    return;
                }
            } catch (InterruptedException e) {
                // stop() interrupts; anything else is spurious and the loop re-checks
            } catch (RuntimeException | Error e) {
                LOG.error("lane {} failed on an event; the event stays in flight (see status)", index, e);
            }
        }
    }

    /** Takes the next batch from the lane; records the enqueue wait of its oldest event (one sample per batch). */
    private void drain() throws InterruptedException {
        if (lane.drainTo(inHand, DRAIN_BATCH, IDLE_WAIT_MILLIS) > 0) {
            for (Object o : inHand) {
                if (o instanceof WorkItem<?, ?> w) {
                    ctx.metrics().enqueueWait.record(System.nanoTime() - w.polledAtNanos, TimeUnit.NANOSECONDS);
                    break;
                }
            }
        }
    }

    /** Returns false when this thread lost its lane to a timeout and must exit. */
    private boolean handle(Object next) {
        if (next instanceof Release r) {
            Chain<K, V> c = parked.get(r.key());
            return c == null || c.token != r.token() || runChain(r.key(), c);
        }
        if (next == PURGE) {
            purge();
            return true;
        }
        if (next == WAKE) {
            return true;
        }
        @SuppressWarnings("unchecked")
        WorkItem<K, V> item = (WorkItem<K, V>) next;
        if (item.partition.revoked) {
            ctx.metrics().dropped.increment();
            finished(item);
            return true;
        }
        Chain<K, V> c = parked.isEmpty() ? null : parked.get(item.routingKey);
        if (c != null) {
            c.items.addLast(item);
            c.size = c.items.size();
            ctx.delays().added(1);
            return true;
        }
        Step step = attempt(item);
        if (step == Step.DONE || step == Step.DROPPED) {
            finished(item);
        }
        return step != Step.ABANDONED;
    }

    /** Attempts the chain's events in order until one parks; false if this thread was abandoned. */
    private boolean runChain(Object key, Chain<K, V> c) {
        while (true) {
            WorkItem<K, V> head = c.items.peekFirst();
            if (head == null) {
                parked.remove(key);
                return true;
            }
            Step step = attempt(head);
            if (step == Step.ABANDONED) {
                return false;
            }
            if (step == Step.PARKED) {
                return true;
            }
            c.items.pollFirst();
            c.size = c.items.size();
            ctx.delays().removed(1);
            finished(head);
        }
    }

    /**
     * One attempt of {@code item} (or, for an event that finally failed earlier, one more call of the failure
     * handler). {@link #current} is published before the revoke check, so a revoking consumer thread either sees the
     * item busy or the lane sees the revoke (both are volatile).
     */
    private Step attempt(WorkItem<K, V> item) {
        current = item;
        if (item.partition.revoked) {
            current = null;
            ctx.metrics().dropped.increment();
            return Step.DROPPED;
        }
        if (item.failure != null) {
            Step step = handFailure(item, item.failure);
            current = null;
            return step;
        }
        long start = System.nanoTime();
        item.begin(ctx.clock().millis());
        Outcome outcome = null;
        Throwable thrown = null;
        try {
            outcome = ctx.processor().process(item.event);
            if (outcome == null) {
                thrown = new NullPointerException("processor returned null for " + item.event.coordinates());
            }
        } catch (Throwable t) {
            thrown = t;
        }
        if (!item.finish()) {
            Thread.interrupted();
            return Step.ABANDONED; // the timer timed it out: the new worker owns the lane and the item
        }
        Step step = decide(item, outcome, thrown, System.nanoTime() - start);
        current = null;
        return step;
    }

    /** {@code item} leaves the runtime (done, finally failed or dropped): its key's lane lease shrinks. */
    private void finished(WorkItem<K, V> item) {
        ctx.assigner().release(item.routingKey, item.lane);
    }

    /** Consumer thread: whether this lane is inside a call for an event of one of {@code partitions}. */
    boolean busyWith(java.util.Set<OwnedPartition> partitions) {
        WorkItem<K, V> item = current;
        return item != null && partitions.contains(item.partition);
    }

    private Step decide(WorkItem<K, V> item, Outcome outcome, Throwable thrown, long nanos) {
        int attempt = item.event.attempt();
        if (thrown != null) {
            ctx.metrics().processing(RuntimeMetrics.Outcome.ERROR).record(nanos, TimeUnit.NANOSECONDS);
            if (thrown instanceof InterruptedException && stopping) {
                return Step.DROPPED;
            }
            String reason = thrown.getClass().getSimpleName() + ": " + thrown.getMessage();
            if (retriable(thrown)) {
                return retry(item, ctx.backoff().delayMillis(attempt, random), reason, thrown);
            }
            return handFailure(item, new Failure(Failure.Kind.NOT_RETRIABLE, reason, thrown, attempt));
        }
        if (outcome instanceof Outcome.Success) {
            ctx.metrics().processing(RuntimeMetrics.Outcome.SUCCESS).record(nanos, TimeUnit.NANOSECONDS);
            markDone(item);
            return Step.DONE;
        }
        if (outcome instanceof Outcome.RetryAfter r) {
            ctx.metrics().processing(RuntimeMetrics.Outcome.RETRY).record(nanos, TimeUnit.NANOSECONDS);
            return retry(item, r.delay().toMillis(), r.reason(), null);
        }
        if (outcome instanceof Outcome.DeferUntil d) {
            ctx.metrics().processing(RuntimeMetrics.Outcome.DEFER).record(nanos, TimeUnit.NANOSECONDS);
            park(item, d.notBefore().toEpochMilli(), "deferred: " + d.reason());
            return Step.PARKED;
        }
        Outcome.Fail f = (Outcome.Fail) outcome;
        ctx.metrics().processing(RuntimeMetrics.Outcome.FAIL).record(nanos, TimeUnit.NANOSECONDS);
        return handFailure(item, new Failure(Failure.Kind.FAILED, f.reason(), null, attempt));
    }

    private static boolean retriable(Throwable t) {
        return t instanceof RetriableException || t instanceof org.apache.kafka.common.errors.RetriableException;
    }

    private Step retry(WorkItem<K, V> item, long delayMillis, String reason, Throwable cause) {
        int attempt = item.event.attempt();
        if (attempt >= ctx.maxAttempts()) {
            return handFailure(item, new Failure(Failure.Kind.RETRIES_EXHAUSTED, reason, cause, attempt));
        }
        ctx.metrics().retries.increment();
        item.event = item.event.nextAttempt();
        park(item, ctx.clock().millis() + delayMillis, "retry: " + reason);
        return Step.PARKED;
    }

    private Step handFailure(WorkItem<K, V> item, Failure failure) {
        try {
            ctx.failureHandler().onFailure(item.event, failure);
        } catch (Throwable t) {
            item.failure = failure;
            item.handlerAttempts++;
            ctx.metrics().handlerErrors.increment();
            LOG.warn("failure handler threw for {} (call {}); the event stays parked and is handed over again",
                    item.event.coordinates(), item.handlerAttempts, t);
            park(item, ctx.clock().millis() + ctx.backoff().delayMillis(item.handlerAttempts, random),
                    "failure handler: " + t);
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Step.PARKED;
        }
        item.failure = null;
        ctx.metrics().finalFailure(failure.kind()).increment();
        markDone(item);
        return Step.DONE;
    }

    private void markDone(WorkItem<K, V> item) {
        Event<K, V> e = item.event;
        ctx.stateManager().done(item.partition.topicPartition, e.offset());
    }

    /** Parks {@code item}: a new chain for its key, or (already the chain's head) a new due time. */
    private void park(WorkItem<K, V> item, long dueMillis, String reason) {
        Chain<K, V> c = parked.get(item.routingKey);
        if (c == null) {
            c = new Chain<>();
            c.items.addLast(item);
            c.size = 1;
            parked.put(item.routingKey, c);
            ctx.delays().added(1);
        }
        c.token++;
        c.describe(item, dueMillis, reason);
        ctx.delays().schedule(dueMillis, this, item.routingKey, c.token);
    }

    /** New worker after a timeout: fails the timed-out event, then resumes its chain; false if abandoned again. */
    private boolean afterTimeout(WorkItem<K, V> item) {
        ctx.metrics().processing(RuntimeMetrics.Outcome.TIMEOUT)
                .record(ctx.clock().millis() - item.startedAtMillis, TimeUnit.MILLISECONDS);
        current = item;
        Step step = handFailure(item, new Failure(Failure.Kind.TIMED_OUT,
                "attempt ran longer than " + ctx.processingTimeoutMillis() + " ms", null, item.event.attempt()));
        current = null;
        if (step == Step.PARKED) {
            return true;
        }
        finished(item);
        Chain<K, V> c = parked.get(item.routingKey);
        if (c != null && c.items.peekFirst() == item) {
            c.items.pollFirst();
            c.size = c.items.size();
            ctx.delays().removed(1);
            return runChain(item.routingKey, c);
        }
        return true;
    }

    private void purge() {
        int dropped = 0;
        for (var it = inHand.iterator(); it.hasNext(); ) {
            if (it.next() instanceof WorkItem<?, ?> w && w.partition.revoked) {
                it.remove();
                ctx.assigner().release(w.routingKey, w.lane);
                dropped++;
            }
        }
        for (var it = parked.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Object, Chain<K, V>> e = it.next();
            Chain<K, V> c = e.getValue();
            WorkItem<K, V> head = c.items.peekFirst();
            int before = c.items.size();
            c.items.removeIf(w -> {
                if (w.partition.revoked) {
                    finished(w);
                    return true;
                }
                return false;
            });
            int removed = before - c.items.size();
            ctx.delays().removed(removed);
            dropped += removed;
            c.size = c.items.size();
            if (c.items.isEmpty()) {
                it.remove();
            } else if (c.items.peekFirst() != head) {
                WorkItem<K, V> next = c.items.peekFirst();
                c.token++;
                c.describe(next, ctx.clock().millis(), "next after a revoked event");
                ctx.delays().schedule(ctx.clock().millis(), this, e.getKey(), c.token);
            }
        }
        ctx.metrics().dropped.increment(dropped);
    }

    /** A parked key: its waiting events, head first. Items are worker-owned; the volatile fields feed the status. */
    private static final class Chain<K, V> {
        final ArrayDeque<WorkItem<K, V>> items = new ArrayDeque<>();
        long token;
        volatile int size;
        volatile String topic;
        volatile int partition;
        volatile long offset;
        volatile int attempt;
        volatile long dueMillis;
        volatile String reason;

        void describe(WorkItem<K, V> head, long dueMillis, String reason) {
            this.topic = head.event.topic();
            this.partition = head.event.partition();
            this.offset = head.event.offset();
            this.attempt = head.event.attempt();
            this.dueMillis = dueMillis;
            this.reason = reason;
        }
    }
}
