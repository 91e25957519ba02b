package io.changestream.runtime.internal;

import io.changestream.runtime.Failure;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.RetryLaterException;
import io.changestream.runtime.Stages;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 *
 * <p>With an {@link io.changestream.runtime.AsyncProcessor} the worker does not wait for a call: it starts it, keeps
 * the key busy (its later events wait behind it in a chain, like behind a parked key) and goes on with other keys,
 * up to {@code maxCallsPerLane} calls of its own and {@code maxCalls} in the runtime. A completion (any thread) is
 * queued to the worker, which decides the outcome exactly as for a synchronous call and starts the key's next event.
 * The timer times out a call by the same compare-and-set and queues a timed-out completion; no thread is replaced.
 *
 * <p>An exception escaping the lane's own code is counted, logged once with the event's coordinates and the event is
 * retried (then, when retries run out, handed to the failure handler); an {@link OutOfMemoryError} or another fatal
 * {@link VirtualMachineError} leaves the event not done (read again after a restart), fails the runtime (not live)
 * and ends the thread.
 */
final class LaneLoop<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(LaneLoop.class);
    /** Events a worker takes from the lane in one lock acquisition. */
    static final int DRAIN_BATCH = 256;
    /** How long an idle worker waits on its lane before checking for stop. */
    static final long IDLE_WAIT_MILLIS = 100;
    private static final Object PURGE = new Object();
    private static final Object WAKE = new Object();
    /** How long a worker blocked only by the runtime-wide call limit waits before looking again. */
    static final long CALL_SLOT_WAIT_MILLIS = 1;

    /** The result of one attempt. RUNNING: an asynchronous call was started and its key is busy. */
    enum Step { DONE, PARKED, DROPPED, ABANDONED, RUNNING }

    /** Timer → worker: a parked key is due. */
    private record Release(Object key, long token) {
    }

    /** Stage or timer → worker: an asynchronous call completed, or timed out. */
    private record Completed<K, V>(WorkItem<K, V> item, Outcome outcome, Throwable thrown, long nanos,
                                   boolean timedOut) {
    }

    final int index;
    final Lane<K, V> lane;
    private final Processing<K, V> ctx;
    private final RandomGenerator random;
    /** The processing timer of successful attempts, the hot path's one (no map look-up per record). */
    private final io.micrometer.core.instrument.Timer successTimer;
    private final String threadPrefix;
    private final ArrayDeque<Object> inHand = new ArrayDeque<>();
    private final Map<Object, Chain<K, V>> parked = new ConcurrentHashMap<>();
    /** Worker-owned: keys with an asynchronous call running, head = the running event. */
    private final Map<Object, Chain<K, V>> busy = new HashMap<>();
    /** The last park's token of this lane (worker-owned). */
    private long tokens;
    /** Asynchronous calls running (the timer and a revoking consumer thread read it). */
    private final Set<WorkItem<K, V>> calls = ConcurrentHashMap.newKeySet();
    private final Queue<Completed<K, V>> completions = new ConcurrentLinkedQueue<>();
    /** Worker-owned: due parked keys that wait for a call slot. */
    private final ArrayDeque<Release> deferred = new ArrayDeque<>();
    private final ArrayDeque<Object> signalsInHand = new ArrayDeque<>();
    private int running;
    /** Completions handed to the StateManager at once, at most. */
    static final int DONE_BATCH = 256;
    /** Longest a completion waits in the worker before it is handed over. */
    static final long DONE_FLUSH_NANOS = 1_000_000;
    private final OwnedPartition[] donePartitions = new OwnedPartition[DONE_BATCH];
    private final long[] doneOffsets = new long[DONE_BATCH];
    private int doneCount;
    private long firstDoneNanos;
    /** A synchronous call longer than this flushes pending completions before the next call. */
    static final long SLOW_CALL_NANOS = 50_000;
    private long lastCallNanos;
    /**
     * Worker: when the last synchronous call ended. While the worker goes straight from one call to the next (no
     * wait, no flush in between) that stamp is the next call's start: one clock read per record, not two; the timer
     * then counts the lane's own sub-microsecond step between calls as processing time (decision 1610).
     */
    private long stampNanos;
    private boolean stampFresh;
    /** Worker: the wall clock as last read, and when (nanoTime); re-read once a millisecond has passed. */
    private long millisRead;
    private long millisReadAtNanos;
    private boolean millisKnown;
    /** The log context of the record being processed (each worker thread has its own MDC). */
    private final RecordLogContext log = new RecordLogContext();
    /** Worker: buffered bytes of items done since the last flush, handed to the shared counter with the offsets. */
    private long doneBytes;
    private volatile Thread worker;
    private volatile WorkItem<K, V> current;
    private static final java.lang.invoke.VarHandle CURRENT;

    static {
        try {
            CURRENT = java.lang.invoke.MethodHandles.lookup().findVarHandle(LaneLoop.class, "current", WorkItem.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private volatile boolean stopping;
    private int generation;
    /** Worker-written, read and cleared by the stats line once per interval (a lost update only misses a sample). */
    private volatile HotKey hottest;

    LaneLoop(int index, Lane<K, V> lane, Processing<K, V> ctx, RandomGenerator random, String threadPrefix) {
        this.index = index;
        this.lane = lane;
        this.ctx = ctx;
        this.random = random;
        this.threadPrefix = threadPrefix;
        this.successTimer = ctx.metrics().processing(RuntimeMetrics.Result.SUCCESS);
    }

    void start() {
        startWorker(null);
    }

    private synchronized void startWorker(WorkItem<K, V> timedOut) {
        Thread t = new Thread(() -> run(timedOut), threadPrefix + "-lane-" + index + "-" + generation++);
        t.setDaemon(true);
        // a fatal error ends the thread after laneError logged it and failed the runtime: nothing more to print
        t.setUncaughtExceptionHandler((thread, e) -> LOG.debug("{} ended by {}", thread.getName(), e.toString()));
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
                finished(item);
                return true;
            }
            return false;
        });
        ctx.metrics().dropped.increment(n);
        lane.signal(PURGE);
    }

    /** Timer thread: times out the running attempt if it started more than the timeout before {@code nowMillis}. */
    void checkTimeout(long nowMillis) {
        if (ctx.async()) {
            for (WorkItem<K, V> call : calls) {
                if (call.running() && nowMillis - call.startedAtMillis > ctx.processingTimeoutMillis()
                        && call.timeOut()) {
                    LOG.warn("{} ran longer than {} ms on lane {}; cancelling the call", call.event().coordinates(),
                            ctx.processingTimeoutMillis(), index);
                    cancel(call.call);
                    completions.add(new Completed<>(call, null, null,
                            TimeUnit.MILLISECONDS.toNanos(nowMillis - call.startedAtMillis), true));
                    lane.signal(WAKE);
                }
            }
            return;
        }
        WorkItem<K, V> item = current;
        if (item != null && item.running() && nowMillis - item.startedAtMillis > ctx.processingTimeoutMillis()
                && item.timeOut()) {
            Thread stuck = worker;
            LOG.warn("{} ran longer than {} ms on {}; interrupting it and giving the lane a new thread",
                    item.event().coordinates(), ctx.processingTimeoutMillis(), stuck.getName());
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

    /** Any thread: asynchronous calls of this lane running now. */
    int runningCalls() {
        return calls.size();
    }

    /** Any thread: how many keys of this lane are parked. */
    int parkedKeyCount() {
        return parked.size();
    }

    /** A key and how many of its events waited behind its running or parked head, at most, since the last look. */
    record HotKey(int lane, Object key, int waiting) {
    }

    /** Worker: a chain grew to {@code waiting} events behind its head; remembered when it is this lane's longest. */
    private void noteWaiting(Object key, int waiting) {
        HotKey h = hottest;
        if (h == null || waiting > h.waiting()) {
            hottest = new HotKey(index, key, waiting);
        }
    }

    /** Any thread (the stats line): the longest chain of a key seen since the last call, or null; starts afresh. */
    HotKey takeHottest() {
        HotKey h = hottest;
        hottest = null;
        return h;
    }

    /** What the status view shows of one parked key. */
    record ParkedKeyView(int lane, String key, String topic, int partition, long offset, int attempt,
                         Instant notBefore, String reason, int waitingBehind) {
    }

    // ---- worker thread ----

    private void run(WorkItem<K, V> timedOut) {
        Thread me = Thread.currentThread();
        stampFresh = false; // a worker replacing a timed-out one: the old one's last stamp is long past
        millisKnown = false;
        if (timedOut != null && !afterTimeout(timedOut)) {
            return;
        }
        while (worker == me && !stopping) {
            try {
                if (!completions.isEmpty()) {
                    completeCalls();
                    continue;
                }
                if (!deferred.isEmpty() && canStart()) {
                    handle(deferred.pollFirst());
                    continue;
                }
                Object next = inHand.peekFirst();
                if (next == null) {
                    drain();
                } else if (ctx.async() && (next instanceof WorkItem<?, ?> || next instanceof Release) && !canStart()) {
                    awaitCallSlot();
                } else if (!handle(inHand.pollFirst())) {
                    return;
                }
            } catch (InterruptedException e) {
                // stop() interrupts; anything else is spurious and the loop re-checks
            } catch (RuntimeException | Error e) {
                laneError(e);
            }
        }
        if (worker == me && (doneCount > 0 || doneBytes != 0)) {
            flushDone();
        }
        log.clear();
    }

    /**
     * An exception escaped the lane's own code (not the processor's: that is an outcome). Counted and logged once with
     * the event's coordinates; the event is retried like a retriable failure. A fatal JVM error propagates: the
     * event stays not done, the runtime is told (and reports itself not live), the thread ends.
     */
    private void laneError(Throwable e) {
        log.clear();
        WorkItem<K, V> item = current;
        current = null;
        ctx.metrics().laneErrors.increment();
        String where = item == null ? "no event" : item.event().coordinates();
        if (fatal(e)) {
            LOG.error("lane {}: fatal {} on {}; the event stays not done (read again after a restart) and the runtime"
                    + " fails", index, e.getClass().getSimpleName(), where, e);
            ctx.onFatal().accept(e);
            throw (Error) e;
        }
        if (item == null) {
            LOG.error("lane {} failed outside an event; it goes on", index, e);
            return;
        }
        LOG.error("lane {} failed on {}; the event is retried", index, where, e);
        try {
            if (retry(item, ctx.backoff().delayMillis(item.event().attempt(), random),
                    "lane error: " + e, e) == Step.DONE) {
                finishChainHead(item);
            }
        } catch (RuntimeException again) {
            LOG.error("lane {}: {} could not be retried either; it is marked done without processing", index, where,
                    again);
            markDone(item);
            finishChainHead(item);
        }
    }

    /** After a lane error handed {@code item} to the failure handler: it leaves its chain (if any) and the runtime. */
    private void finishChainHead(WorkItem<K, V> item) {
        Chain<K, V> c = parked.get(item.routingKey);
        if (c != null && c.items.peekFirst() == item) {
            c.items.pollFirst();
            c.size = c.items.size();
            ctx.delays().removed(1);
            if (c.items.isEmpty()) {
                parked.remove(item.routingKey);
            } else {
                c.token = ++tokens;
                c.describe(c.items.peekFirst(), ctx.clock().millis(), "next after a lane error");
                ctx.delays().schedule(ctx.clock().millis(), index, item.routingKey, c.token);
            }
        }
        finished(item);
    }

    /** OutOfMemoryError, InternalError, UnknownError: the JVM is not fit to go on. A stack overflow is the event's. */
    static boolean fatal(Throwable t) {
        return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
    }

    /** Whether another asynchronous call may start in this lane now. */
    private boolean canStart() {
        return running < ctx.maxCallsPerLane() && !ctx.calls().full();
    }

    /**
     * At a call limit: handles only control signals until a completion arrives (due keys wait in {@link #deferred};
     * queued events stay queued, so per-key order holds).
     */
    private void awaitCallSlot() throws InterruptedException {
        if (doneCount > 0 || doneBytes != 0) {
            flushDone();
        }
        long wait = running > 0 ? IDLE_WAIT_MILLIS : CALL_SLOT_WAIT_MILLIS;
        lane.drainSignals(signalsInHand, wait);
        for (Object s; (s = signalsInHand.pollFirst()) != null; ) {
            if (s instanceof Release r) {
                deferred.addLast(r);
            } else if (s == PURGE) {
                purge();
            }
        }
    }

    /** Takes the next batch from the lane; records the enqueue wait of its oldest event (one sample per batch). */
    private void drain() throws InterruptedException {
        if (doneCount > 0 || doneBytes != 0) {
            flushDone();
        }
        log.clear(); // the last record's key does not outlive its batch
        stampFresh = false; // the worker may wait: the next call starts at its own time, the clock is read again
        millisKnown = false;
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
            noteWaiting(item.routingKey, c.size - 1);
            return true;
        }
        c = busy.isEmpty() ? null : busy.get(item.routingKey);
        if (c != null) {
            c.items.addLast(item);
            c.size = c.items.size();
            lane.behind(1);
            noteWaiting(item.routingKey, c.size - 1);
            return true;
        }
        Step step = attempt(item);
        if (step == Step.DONE || step == Step.DROPPED) {
            ctx.assigner().release(item.routingKey, item.lane);
            doneBytes += item.bytes; // handed to the shared counter with the next flush of completions
        } else if (step == Step.RUNNING) {
            Chain<K, V> chain = new Chain<>();
            chain.items.addLast(item);
            chain.size = 1;
            busy.put(item.routingKey, chain);
        }
        return step != Step.ABANDONED;
    }

    /** Worker: decides every queued completion, then starts each key's next event. */
    private void completeCalls() {
        for (Completed<K, V> done; (done = completions.poll()) != null; ) {
            WorkItem<K, V> item = done.item();
            calls.remove(item);
            running--;
            ctx.calls().release();
            Chain<K, V> c = busy.remove(item.routingKey);
            if (c == null || c.items.peekFirst() != item) {
                LOG.error("lane {}: completion of {} without its busy chain; ignored", index,
                        item.event().coordinates());
                continue;
            }
            // the chain is parked while its head is decided: park() then reuses it, later events stay behind
            parked.put(item.routingKey, c);
            lane.behind(1 - c.items.size());
            ctx.delays().added(c.items.size());
            current = item;
            Step step;
            if (item.partition.revoked) {
                ctx.metrics().dropped.increment();
                step = Step.DROPPED;
            } else if (done.timedOut()) {
                ctx.metrics().processing(RuntimeMetrics.Result.TIMEOUT).record(done.nanos(), TimeUnit.NANOSECONDS);
                step = handFailure(item, new Failure(Failure.Kind.TIMED_OUT,
                        "call ran longer than " + ctx.processingTimeoutMillis() + " ms", null, item.event().attempt()));
            } else {
                step = decide(item, done.outcome(), done.thrown(), done.nanos());
            }
            current = null;
            if (step == Step.PARKED) {
                continue;
            }
            c.items.pollFirst();
            c.size = c.items.size();
            ctx.delays().removed(1);
            finished(item);
            runChain(item.routingKey, c);
        }
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
            if (step == Step.RUNNING) {
                parked.remove(key);
                ctx.delays().removed(c.items.size());
                lane.behind(c.items.size() - 1);
                busy.put(key, c);
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
        if (ctx.async()) {
            Step step = startCall(item);
            current = null;
            return step;
        }
        if (doneCount > 0 && lastCallNanos > SLOW_CALL_NANOS) {
            flushDone(); // a slow processor gains nothing from batching: never hold a completion across a call
        }
        long start = stampFresh ? stampNanos : System.nanoTime();
        item.begin(startMillis(start));
        Outcome outcome = null;
        Throwable thrown = null;
        log.enter(item.partition.coordinatesPrefix + item.event().offset());
        try {
            outcome = ctx.processor().process(item.event());
            if (outcome == null) {
                thrown = new NullPointerException("processor returned null for " + item.event().coordinates());
            }
        } catch (Throwable t) {
            thrown = t;
        } finally {
            // keys the processor added do not reach the next record; `record` itself may stay until the next one
            // replaces it (decision 1610)
            log.leave();
        }
        if (!item.finish()) {
            Thread.interrupted();
            return Step.ABANDONED; // the timer timed it out: the new worker owns the lane and the item
        }
        if (fatal(thrown)) {
            throw (Error) thrown; // laneError: the event stays not done, the runtime fails
        }
        long end = System.nanoTime();
        lastCallNanos = end - start;
        stampNanos = end;
        stampFresh = true;
        Step step = decide(item, outcome, thrown, lastCallNanos);
        // a release store: publishing "not busy" may lag by nanoseconds (a revoke or the watchdog then looks again),
        // setting it before the revoke check above must not (that one stays a full volatile store)
        CURRENT.setRelease(this, null);
        return step;
    }

    /**
     * Starts an asynchronous call of {@code item}; its completion comes back through {@link #completions}. Without a
     * free call slot the key is parked for a moment instead (not an attempt).
     */
    private Step startCall(WorkItem<K, V> item) {
        if (running >= ctx.maxCallsPerLane() || !ctx.calls().tryAcquire()) {
            park(item, ctx.clock().millis() + CALL_SLOT_WAIT_MILLIS, "waiting for a call slot");
            return Step.PARKED;
        }
        running++;
        calls.add(item);
        long start = System.nanoTime();
        item.begin(ctx.clock().millis());
        CompletionStage<Outcome> stage;
        try {
            stage = ctx.asyncProcessor().process(item.event());
            if (stage == null) {
                stage = CompletableFuture.failedFuture(
                        new NullPointerException("processor returned null for " + item.event().coordinates()));
            }
        } catch (Throwable t) {
            if (fatal(t)) {
                running--;
                calls.remove(item);
                ctx.calls().release();
                item.finish();
                throw (Error) t;
            }
            stage = CompletableFuture.failedFuture(t);
        }
        item.call = stage;
        stage.whenComplete((outcome, thrown) -> {
            if (item.finish()) {
                completions.add(new Completed<>(item, outcome, Stages.unwrap(thrown), System.nanoTime() - start,
                        false));
                lane.signal(WAKE);
            }
        });
        return Step.RUNNING;
    }


    private static void cancel(CompletionStage<Outcome> stage) {
        if (stage == null) {
            return;
        }
        try {
            stage.toCompletableFuture().cancel(true);
        } catch (UnsupportedOperationException e) {
            // a stage that cannot be cancelled: its late completion is ignored
        }
    }

    /** {@code item} leaves the runtime (done, finally failed or dropped): its key's lane lease shrinks. */
    private void finished(WorkItem<K, V> item) {
        ctx.assigner().release(item.routingKey, item.lane);
        if (item.bytes != 0) {
            ctx.bufferedBytes().add(-item.bytes);
        }
    }

    /** Consumer thread: whether this lane is inside a call for an event of one of {@code partitions}. */
    boolean busyWith(java.util.Set<OwnedPartition> partitions) {
        WorkItem<K, V> item = current;
        if (item != null && partitions.contains(item.partition)) {
            return true;
        }
        for (WorkItem<K, V> call : calls) {
            if (partitions.contains(call.partition)) {
                return true;
            }
        }
        return false;
    }

    private Step decide(WorkItem<K, V> item, Outcome outcome, Throwable thrown, long nanos) {
        int attempt = item.event().attempt();
        if (thrown != null) {
            ctx.metrics().processing(RuntimeMetrics.Result.ERROR).record(nanos, TimeUnit.NANOSECONDS);
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
            successTimer.record(nanos, TimeUnit.NANOSECONDS);
            markDone(item);
            return Step.DONE;
        }
        if (outcome instanceof Outcome.RetryAfter r) {
            ctx.metrics().processing(RuntimeMetrics.Result.RETRY).record(nanos, TimeUnit.NANOSECONDS);
            return retry(item, r.delay().toMillis(), r.reason(), null);
        }
        if (outcome instanceof Outcome.DeferUntil d) {
            ctx.metrics().processing(RuntimeMetrics.Result.DEFER).record(nanos, TimeUnit.NANOSECONDS);
            park(item, d.notBefore().toEpochMilli(), "deferred: " + d.reason());
            return Step.PARKED;
        }
        if (outcome instanceof Outcome.Await a) {
            ctx.metrics().processing(RuntimeMetrics.Result.DEFER).record(nanos, TimeUnit.NANOSECONDS);
            long token = park(item, ctx.clock().millis() + a.atMost().toMillis(), "awaiting: " + a.reason());
            Object key = item.routingKey;
            // the signal releases the park early: a Due now with the park's token (a later park has another one,
            // so a late signal releases nothing); the bound's own Due then finds a stale token
            a.signal().whenComplete((v, e) -> ctx.delays().schedule(ctx.clock().millis(), index, key, token));
            return Step.PARKED;
        }
        Outcome.Fail f = (Outcome.Fail) outcome;
        ctx.metrics().processing(RuntimeMetrics.Result.FAIL).record(nanos, TimeUnit.NANOSECONDS);
        return handFailure(item, new Failure(Failure.Kind.FAILED, f.reason(), null, attempt));
    }

    private static boolean retriable(Throwable t) {
        return t instanceof RetryLaterException || t instanceof org.apache.kafka.common.errors.RetriableException;
    }

    private Step retry(WorkItem<K, V> item, long delayMillis, String reason, Throwable cause) {
        int attempt = item.event().attempt();
        if (attempt >= ctx.maxAttempts()) {
            return handFailure(item, new Failure(Failure.Kind.RETRIES_EXHAUSTED, reason, cause, attempt));
        }
        ctx.metrics().retries.increment();
        item.event = item.event().nextAttempt();
        park(item, ctx.clock().millis() + delayMillis, "retry: " + reason);
        return Step.PARKED;
    }

    private Step handFailure(WorkItem<K, V> item, Failure failure) {
        try {
            log.enter(item.partition.coordinatesPrefix + item.event().offset());
            ctx.failureHandler().onFailure(item.event(), failure);
        } catch (Throwable t) {
            item.failure = failure;
            item.handlerAttempts++;
            ctx.metrics().handlerErrors.increment();
            LOG.warn("failure handler threw for {} (call {}); the event stays parked and is handed over again",
                    item.event().coordinates(), item.handlerAttempts, t);
            park(item, ctx.clock().millis() + ctx.backoff().delayMillis(item.handlerAttempts, random),
                    "failure handler: " + t);
            if (t instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Step.PARKED;
        } finally {
            log.clear(); // an asynchronous processor's calls run without a record in the log context
        }
        item.failure = null;
        ctx.metrics().finalFailure(failure.kind()).increment();
        markDone(item);
        return Step.DONE;
    }

    /**
     * The event is done: its offset joins the pending completions, handed to the StateManager in one call per
     * partition run when {@value #DONE_BATCH} are pending, when the oldest waited {@value #DONE_FLUSH_NANOS} ns, or
     * before the worker waits (so a commit or a revoke never waits on a pending completion for long).
     */
    private void markDone(WorkItem<K, V> item) {
        if (doneCount == 0) {
            firstDoneNanos = System.nanoTime();
        }
        donePartitions[doneCount] = item.partition;
        doneOffsets[doneCount++] = item.event().offset();
        // the clock is read every 16th completion only: a flush is at most 16 completions late
        if (doneCount == DONE_BATCH
                || (doneCount & 15) == 0 && System.nanoTime() - firstDoneNanos > DONE_FLUSH_NANOS) {
            flushDone();
        }
    }

    /**
     * Worker: the wall-clock start of an attempt that starts at {@code nanos}, for the timeout watchdog. The clock is
     * read at most once a millisecond: the start may be up to 1 ms early, so a timeout may fire up to 1 ms early.
     */
    private long startMillis(long nanos) {
        if (!millisKnown || nanos - millisReadAtNanos >= 1_000_000) {
            millisRead = ctx.clock().millis();
            millisReadAtNanos = nanos;
            millisKnown = true;
        }
        return millisRead;
    }

    /** Worker: hands the pending completions to the StateManager, one call per run of one partition. */
    private void flushDone() {
        stampFresh = false;
        if (doneBytes != 0) {
            ctx.bufferedBytes().add(-doneBytes);
            doneBytes = 0;
        }
        int from = 0;
        for (int i = 1; i <= doneCount; i++) {
            if (i == doneCount || donePartitions[i] != donePartitions[from]) {
                ctx.stateManager().done(donePartitions[from], doneOffsets, from, i - from);
                from = i;
            }
        }
        java.util.Arrays.fill(donePartitions, 0, doneCount, null);
        doneCount = 0;
    }

    /**
     * Parks {@code item}: a new chain for its key, or (already the chain's head) a new due time. Returns the park's
     * token (unique in this lane: a Due of an earlier park, or of an earlier chain of the key, never matches it).
     */
    private long park(WorkItem<K, V> item, long dueMillis, String reason) {
        Chain<K, V> c = parked.get(item.routingKey);
        if (c == null) {
            c = new Chain<>();
            c.items.addLast(item);
            c.size = 1;
            parked.put(item.routingKey, c);
            ctx.delays().added(1);
        }
        c.token = ++tokens;
        c.describe(item, dueMillis, reason);
        ctx.delays().schedule(dueMillis, index, item.routingKey, c.token);
        return c.token;
    }

    /** New worker after a timeout: fails the timed-out event, then resumes its chain; false if abandoned again. */
    private boolean afterTimeout(WorkItem<K, V> item) {
        ctx.metrics().processing(RuntimeMetrics.Result.TIMEOUT)
                .record(ctx.clock().millis() - item.startedAtMillis, TimeUnit.MILLISECONDS);
        current = item;
        Step step = handFailure(item, new Failure(Failure.Kind.TIMED_OUT,
                "attempt ran longer than " + ctx.processingTimeoutMillis() + " ms", null, item.event().attempt()));
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
                @SuppressWarnings("unchecked")
                WorkItem<K, V> mine = (WorkItem<K, V>) w;
                finished(mine);
                dropped++;
            }
        }
        for (Chain<K, V> c : busy.values()) {
            // the running head stays (its completion drops it); waiting events of revoked partitions go
            int before = c.items.size();
            WorkItem<K, V> head = c.items.pollFirst();
            c.items.removeIf(w -> {
                if (w.partition.revoked) {
                    finished(w);
                    return true;
                }
                return false;
            });
            c.items.addFirst(head);
            int removed = before - c.items.size();
            lane.behind(-removed);
            dropped += removed;
            c.size = c.items.size();
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
                c.token = ++tokens;
                c.describe(next, ctx.clock().millis(), "next after a revoked event");
                ctx.delays().schedule(ctx.clock().millis(), index, e.getKey(), c.token);
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
            this.topic = head.event().topic();
            this.partition = head.event().partition();
            this.offset = head.event().offset();
            this.attempt = head.event().attempt();
            this.dueMillis = dueMillis;
            this.reason = reason;
        }
    }
}
