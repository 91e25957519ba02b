package io.changestream.logs.engine;

import io.changestream.logs.source.ChangeWatch;
import io.changestream.logs.engine.LogMetrics.Refusal;
import io.changestream.logs.source.LogSource;
import io.changestream.topics.model.LogStreamEvent;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns stream requests into viewers of the one {@link RunTailer} per (source, pipeline, run): starts a tailer for
 * the first viewer, joins later ones, lets the last one leaving stop it. Owns the poll scheduler (one thread per 25
 * runs of {@code maxActiveRuns}, 2–16), the heartbeat thread (a pass a second beats the viewers that are due, so
 * heartbeats are spread over the interval, and the same pass enforces the slow-viewer budget of all viewers together,
 * {@code maxPendingBytesTotal}), the connection and run caps, and hands Kafka replays
 * to the replay executor. Request threads call {@link #open}; {@link #close()} is idempotent and does not drain.
 */
public final class TailerManager implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TailerManager.class);
    private static final int ATTACH_ATTEMPTS = 3;
    private static final long HEARTBEAT_PASS_MILLIS = 1000;

    /** Message of the error event past {@code maxActiveRuns}. */
    public static final String TOO_MANY_RUNS = "The server is already streaming the maximum number of pipeline runs."
            + " Retry shortly or use the paging endpoint (/last).";
    /** Message of the error event past {@code maxActiveConnections}. */
    public static final String TOO_MANY_CONNECTIONS = "The server is already serving the maximum number of log stream"
            + " connections. Retry shortly or use the paging endpoint (/last).";

    /** Identity of a tailer. */
    record RunKey(String source, String pipelineFqn, String runId) {
    }

    /** A tailer, its scheduled poll and its change watch. */
    private static final class Tailed {
        private RunTailer tailer;
        private ScheduledFuture<?> task;
        private ScheduledThreadPoolExecutor scheduler;
        private AutoCloseable watch = () -> { };
        private boolean cancelled;
        private final java.util.concurrent.atomic.AtomicBoolean pollPending =
                new java.util.concurrent.atomic.AtomicBoolean();

        synchronized void start(ScheduledThreadPoolExecutor on, long pollNanos) {
            if (task == null && !cancelled) {
                scheduler = on;
                task = on.scheduleWithFixedDelay(tailer::poll, 0, pollNanos, TimeUnit.NANOSECONDS);
            }
        }

        /** A change was seen: one extra poll now, coalesced with any already queued. */
        void pollSoon() {
            ScheduledThreadPoolExecutor on;
            synchronized (this) {
                on = cancelled ? null : scheduler;
            }
            if (on != null && pollPending.compareAndSet(false, true)) {
                try {
                    on.execute(() -> {
                        pollPending.set(false);
                        tailer.poll();
                    });
                } catch (RejectedExecutionException e) {
                    pollPending.set(false);
                }
            }
        }

        synchronized void cancel() {
            cancelled = true;
            if (task != null) {
                task.cancel(false);
            }
            try {
                watch.close();
            } catch (Exception e) {
                LOG.debug("closing a change watch: {}", e.toString());
            }
        }
    }

    private final StreamSettings settings;
    private final Ticker ticker;
    private final RunStateView states;
    private final ChunkPublisher publisher;
    private final Replayer replayer;
    private final Executor replayExecutor;
    private final ChangeWatch changes;
    private final LogMetrics metrics;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ScheduledThreadPoolExecutor heartbeats;
    private final Map<RunKey, Tailed> runs = new ConcurrentHashMap<>();
    private final Set<Viewer> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong privateReaders = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    /**
     * A manager; starts the poll scheduler and the heartbeat thread.
     *
     * @param replayExecutor runs Kafka replays (bounded; a rejected replay is served as truncated)
     * @param changes        wakes a tailer when its source's directory changes ({@link ChangeWatch#NONE}: never)
     */
    public TailerManager(StreamSettings settings, Ticker ticker, RunStateView states, ChunkPublisher publisher,
                         Replayer replayer, Executor replayExecutor, ChangeWatch changes, LogMetrics metrics) {
        this.settings = settings;
        this.ticker = ticker;
        this.states = states;
        this.publisher = publisher;
        this.replayer = replayer;
        this.replayExecutor = replayExecutor;
        this.changes = changes;
        this.metrics = metrics;
        this.scheduler = new ScheduledThreadPoolExecutor(settings.pollThreads(), daemon("log-tailer-poll"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.heartbeats = new ScheduledThreadPoolExecutor(1, daemon("log-tailer-heartbeat"));
        // a pass every second (or every heartbeat, when shorter) beats only the viewers that are due
        long pass = Math.min(TimeUnit.SECONDS.toMillis(settings.heartbeatSeconds()), HEARTBEAT_PASS_MILLIS);
        heartbeats.scheduleWithFixedDelay(this::heartbeat, pass, pass, TimeUnit.MILLISECONDS);
        metrics.gauges(runs::size, connectionCount::get);
    }

    /**
     * Streams {@code pipelineFqn/runId} from {@code source} to {@code viewer}, resuming after {@code after}. Returns
     * at once; delivery happens on the scheduler. Past a cap the viewer gets an {@code error} event and is closed.
     */
    public void open(String pipelineFqn, String runId, LogSource source, String after, Viewer viewer) {
        if (closed) {
            refuse(viewer, after, "The server is shutting down. Reconnect with the last cursor.", null);
            return;
        }
        if (connectionCount.incrementAndGet() > settings.maxActiveConnections()) {
            connectionCount.decrementAndGet();
            refuse(viewer, after, TOO_MANY_CONNECTIONS, Refusal.TOO_MANY_CONNECTIONS);
            return;
        }
        connections.add(viewer);
        RunKey key = new RunKey(source.kind(), pipelineFqn, runId);
        for (int attempt = 0; attempt < ATTACH_ATTEMPTS; attempt++) {
            String[] backendFull = new String[1];
            Tailed tailed = runs.computeIfAbsent(key, k -> build(k, source, after, backendFull));
            if (tailed == null) {
                forget(viewer);
                if (backendFull[0] != null) {
                    refuse(viewer, after, backendFull[0], Refusal.TOO_MANY_BACKEND_RUNS);
                } else {
                    refuse(viewer, after, TOO_MANY_RUNS, Refusal.TOO_MANY_RUNS);
                }
                return;
            }
            RunTailer tailer = tailed.tailer;
            viewer.onGone(() -> {
                forget(viewer);
                tailer.detach(viewer);
            });
            RunTailer.Attach attach = tailer.attach(viewer, after);
            if (attach instanceof RunTailer.Ended) {
                runs.remove(key, tailed);
                continue;
            }
            tailed.start(scheduler, settings.poll().toNanos());
            if (attach instanceof RunTailer.NeedsReplay plan) {
                replay(pipelineFqn, runId, after == null ? source.startCursor() : after, tailer, viewer, plan);
            }
            if (!viewer.isOpen()) {
                tailer.detach(viewer);
            }
            return;
        }
        forget(viewer);
        refuse(viewer, after, TOO_MANY_RUNS, Refusal.TOO_MANY_RUNS);
    }

    /** Sends an error event and closes (no backend, unknown run…); counted under {@code reason} when given. */
    public void refuse(Viewer viewer, String after, String message, Refusal reason) {
        if (reason != null) {
            metrics.refused(reason);
        }
        viewer.finish(new LogStreamEvent(LogStreamEvent.EventType.ERROR, viewer.runId(), null, after, null, null,
                null, message));
    }

    /** Runs being tailed. */
    public int activeRuns() {
        return runs.size();
    }

    /** Open connections. */
    public int activeConnections() {
        return connectionCount.get();
    }

    /** The settings in force. */
    public StreamSettings settings() {
        return settings;
    }

    /** The metrics catalogue. */
    public LogMetrics metrics() {
        return metrics;
    }

    /** Stops every tailer, closes every viewer without {@code complete}, stops the threads (waits up to 5 s). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List.copyOf(runs.values()).forEach(t -> {
            t.cancel();
            t.tailer.shutdown();
        });
        runs.clear();
        List.copyOf(connections).forEach(Viewer::close);
        scheduler.shutdownNow();
        heartbeats.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            heartbeats.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A new tailer of {@code key}, or null past {@code maxActiveRuns} or past its backend's
     * {@code <kind>.maxActiveRuns} (then {@code backendFull[0]} is the message naming it).
     */
    private Tailed build(RunKey key, LogSource source, String after, String[] backendFull) {
        if (runs.size() >= settings.maxActiveRuns()) {
            LOG.warn("refusing to tail {}: already tailing {} runs", key, runs.size());
            return null;
        }
        int perBackend = source.maxActiveRuns();
        if (perBackend < Integer.MAX_VALUE) {
            String kind = source.kind();
            long polled = runs.keySet().stream().filter(k -> k.source().equals(kind)
                    || k.source().startsWith(kind + "#")).count();
            if (polled >= perBackend) {
                backendFull[0] = "The server is already tailing the maximum number of runs from this log backend ("
                        + kind + ".maxActiveRuns = " + perBackend + "). Retry shortly or use the paging endpoint "
                        + "(/last).";
                return null;
            }
        }
        Tailed tailed = new Tailed();
        tailed.tailer = new RunTailer(key.pipelineFqn(), key.runId(), source, after, states, settings, ticker,
                metrics, publisher, () -> {
                    runs.remove(key, tailed);
                    tailed.cancel();
                });
        source.watchDirectory().ifPresent(dir -> tailed.watch = changes.watch(dir, tailed::pollSoon));
        return tailed;
    }

    private void replay(String fqn, String runId, String from, RunTailer tailer, Viewer viewer,
                        RunTailer.NeedsReplay plan) {
        Runnable task = () -> {
            Replayer.Result result;
            try {
                result = replayer.replay(fqn, runId, from, plan.stopCursors(), settings.maxStreamBytes());
            } catch (RuntimeException e) {
                LOG.warn("replay of {}/{} from {} failed: {}", fqn, runId, from, e.toString());
                result = Replayer.Result.NOT_FOUND;
            }
            if (result.reached() || !catchUpAlone(fqn, runId, from, tailer, viewer)) {
                tailer.completeReplay(viewer, plan, result);
            }
        };
        try {
            replayExecutor.execute(task);
        } catch (RejectedExecutionException e) {
            tailer.completeReplay(viewer, plan, Replayer.Result.NOT_FOUND);
        }
    }

    /**
     * The range after {@code from} is neither in memory nor on the topic (its reader died before publishing the next
     * chunk, or the topic lost it), but the backend still holds it: the viewer leaves the shared reader and gets its
     * own, started at its cursor, which reads the backend from there — exact, at the cost of a second reader of the
     * run while the viewer stays. False (and nothing changed) when the run cap leaves no slot: then it is truncated.
     */
    private boolean catchUpAlone(String fqn, String runId, String from, RunTailer shared, Viewer viewer) {
        if (closed) {
            return false;
        }
        RunKey key = new RunKey(shared.source().kind() + "#" + privateReaders.incrementAndGet(), fqn, runId);
        Tailed tailed = build(key, shared.source().reopen(), from, new String[1]);
        if (tailed == null || runs.putIfAbsent(key, tailed) != null) {
            return false;
        }
        shared.handOver(viewer);
        RunTailer own = tailed.tailer;
        viewer.onGone(() -> {
            forget(viewer);
            own.detach(viewer);
        });
        metrics.replay(LogMetrics.ReplayKind.SOURCE);
        own.attach(viewer, from);
        tailed.start(scheduler, settings.poll().toNanos());
        if (!viewer.isOpen()) {
            own.detach(viewer);
        }
        return true;
    }

    private void forget(Viewer viewer) {
        if (connections.remove(viewer)) {
            connectionCount.decrementAndGet();
        }
    }

    private void heartbeat() {
        try {
            long now = ticker.nanos();
            long interval = TimeUnit.SECONDS.toNanos(settings.heartbeatSeconds());
            long pending = 0;
            for (Viewer viewer : connections) {
                viewer.heartbeatIfDue(now, interval);
                pending += viewer.pendingBytes();
            }
            if (pending > settings.maxPendingBytesTotal()) {
                cutSlowest(pending);
            }
        } catch (RuntimeException e) {
            LOG.warn("heartbeat pass failed", e);
        }
    }

    /**
     * All viewers together are {@code total} bytes behind, past {@code maxPendingBytesTotal}: cuts off the viewers
     * furthest behind ({@link Viewer#cutOff}, {@code truncated} with their cursor) until the rest are within it. Runs
     * on the heartbeat thread, once a second; between passes each viewer is bounded by its own budget.
     */
    private void cutSlowest(long total) {
        record Behind(Viewer viewer, long pending) {
        }
        List<Behind> behind = new java.util.ArrayList<>();
        for (Viewer viewer : connections) {
            long p = viewer.pendingBytes();
            if (p > 0) {
                behind.add(new Behind(viewer, p));
            }
        }
        behind.sort(java.util.Comparator.comparingLong(Behind::pending).reversed());
        long left = total;
        int cut = 0;
        for (Behind b : behind) {
            if (left <= settings.maxPendingBytesTotal()) {
                break;
            }
            if (b.viewer().cutOff(Viewer.Budget.GLOBAL, settings.maxPendingBytesTotal())) {
                cut++;
            }
            left -= b.pending();
        }
        LOG.info("{} viewers were {} bytes behind, past stream.maxPendingBytesTotal = {}: cut off the {} furthest "
                + "behind with truncated and their cursor", behind.size(), total, settings.maxPendingBytesTotal(), cut);
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
