package io.changestream.logs.engine;

import io.changestream.logs.engine.LogMetrics.ReplayKind;
import io.changestream.logs.source.SourceUnavailableException;
import io.changestream.logs.source.LogSource;
import io.changestream.logs.source.Page;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EndReason;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one run's log forward and fans every new chunk out to all its viewers: the single reader of a
 * (source, pipeline, run). Keeps a replay buffer of at most {@code maxReplayBytes} for late joiners, hands every
 * chunk to the {@link ChunkPublisher}, and ends itself on its own stop rules (finished run, idle) or when its last
 * viewer leaves — so it never outlives its viewers. The lifetime and byte caps ({@code maxStreamSeconds},
 * {@code maxStreamBytes}) are each viewer's own: after every poll a viewer that reached one gets
 * {@code complete maxDuration|maxBytes} and is closed, the others go on.
 *
 * <p>Does not schedule itself: the {@link TailerManager} calls {@link #poll()} on its shared scheduler, tests call it
 * directly on a fake {@link Ticker}. Poll, request and replay threads call it; every method is synchronized.
 */
public final class RunTailer {

    private static final Logger LOG = LoggerFactory.getLogger(RunTailer.class);
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** One chunk as read: contiguous with its neighbours ({@code before} is the previous chunk's {@code after}). */
    public record Chunk(String before, String after, String text, long bytes) {
    }

    /** MDC key of the pipeline a tailer's read is for. */
    static final String MDC_PIPELINE = "pipelineFqn";
    /** MDC key of the run a tailer's read is for. */
    static final String MDC_RUN_ID = "runId";

    private final String pipelineFqn;
    private final String runId;
    private final LogSource source;
    private final RunStateView states;
    private final StreamSettings settings;
    private final Ticker ticker;
    private final LogMetrics metrics;
    private final ChunkPublisher publisher;
    private final Runnable onTerminate;

    private final List<Viewer> viewers = new ArrayList<>();
    private final Deque<Chunk> buffer = new ArrayDeque<>();
    private long bufferBytes;
    private String bufferStart;
    private String cursor;
    private boolean restartPending;
    private long lastContentAt;
    private long lastProbeAt;
    private boolean probed;
    private RunState lastState = RunState.RUNNING;
    private boolean terminated;

    /**
     * A tailer starting at {@code startCursor} (null = the source's start).
     *
     * @param onTerminate runs once when the tailer ends, for whatever reason (frees the run slot)
     */
    public RunTailer(String pipelineFqn, String runId, LogSource source, String startCursor, RunStateView states,
                     StreamSettings settings, Ticker ticker, LogMetrics metrics, ChunkPublisher publisher,
                     Runnable onTerminate) {
        this.pipelineFqn = pipelineFqn;
        this.runId = runId;
        this.source = source;
        this.states = states;
        this.settings = settings;
        this.ticker = ticker;
        this.metrics = metrics;
        this.publisher = publisher;
        this.onTerminate = onTerminate;
        this.cursor = startCursor == null ? source.startCursor() : startCursor;
        this.bufferStart = cursor;
        this.lastContentAt = ticker.nanos();
        this.lastProbeAt = lastContentAt;
    }

    /** What a joining viewer needs after {@link #attach}. */
    public sealed interface Attach permits Attached, Ended, NeedsReplay {
    }

    /** The viewer is attached and has been sent what it missed from memory. */
    public record Attached() implements Attach {
    }

    /** The tailer has ended; start a new one. */
    public record Ended() implements Attach {
    }

    /**
     * The viewer's cursor is not in memory: it is attached with live frames held back until
     * {@link #completeReplay} delivers what {@link Replayer} finds up to one of {@code stopCursors}.
     */
    public record NeedsReplay(Set<String> stopCursors, List<Chunk> snapshot, String snapshotStart)
            implements Attach {
    }

    /** Attaches a viewer resuming after {@code fromCursor} (null = from the start of the run). */
    public synchronized Attach attach(Viewer viewer, String fromCursor) {
        if (terminated) {
            return new Ended();
        }
        viewer.startClock(ticker.nanos());
        String from = fromCursor == null ? source.startCursor() : fromCursor;
        viewer.resumeFrom(from);
        List<Chunk> missed = after(List.copyOf(buffer), bufferStart, from);
        if (missed != null) {
            if (!missed.isEmpty()) {
                metrics.replay(ReplayKind.MEMORY);
            }
            List<LogStreamEvent> events = new ArrayList<>(missed.size());
            missed.forEach(chunk -> events.add(replayEvent(chunk)));
            viewer.hold();
            viewers.add(viewer);
            viewer.release(events);
            return new Attached();
        }
        viewer.hold();
        viewers.add(viewer);
        Set<String> stops = new HashSet<>();
        stops.add(bufferStart);
        buffer.forEach(chunk -> stops.add(chunk.after()));
        stops.add(cursor);
        return new NeedsReplay(Set.copyOf(stops), List.copyOf(buffer), bufferStart);
    }

    /**
     * Finishes a {@link NeedsReplay} attach: the replayed chunks and then the memory snapshot after the cursor they
     * reached, or — when the range is gone — a {@code truncated} notice and the whole snapshot. Then live frames.
     */
    public void completeReplay(Viewer viewer, NeedsReplay plan, Replayer.Result result) {
        List<Chunk> snapshot = plan.snapshot();
        List<LogStreamEvent> events = new ArrayList<>();
        List<Chunk> rest = result.reached() ? after(snapshot, plan.snapshotStart(), result.reachedCursor()) : null;
        if (rest != null) {
            metrics.replay(ReplayKind.KAFKA);
            result.chunks().forEach(c -> events.add(LogStreamEvent.logs(runId, c.text(), c.cursorAfter(), true,
                    false)));
        } else {
            metrics.replay(ReplayKind.TRUNCATED);
            events.add(LogStreamEvent.logs(runId, "", plan.snapshotStart(), true, true));
            rest = snapshot;
        }
        rest.forEach(chunk -> events.add(replayEvent(chunk)));
        if (!viewer.release(events)) {
            detach(viewer);
        }
    }

    /**
     * Takes back a viewer whose {@link NeedsReplay} could not be served, sending it nothing: its held live frames are
     * dropped and it is not closed, so another reader can take it over. The last viewer leaving ends the tailer.
     */
    public synchronized void handOver(Viewer viewer) {
        viewers.remove(viewer);
        viewer.dropHeld();
        if (viewers.isEmpty()) {
            stop();
        }
    }

    /** The source this tailer reads. */
    public LogSource source() {
        return source;
    }

    /** Detaches a viewer; the last one leaving ends the tailer, so an unwatched run is never read. */
    public synchronized void detach(Viewer viewer) {
        viewers.remove(viewer);
        if (viewers.isEmpty()) {
            stop();
        }
    }

    /**
     * Reads what the run produced since the last poll (at most {@code maxReadsPerTick} pages and
     * {@code maxBytesPerTick}), fans it out, then applies the stop rules. Never throws: a transient read error
     * keeps the stream, a fatal one or any unexpected failure ends it with an {@code error} event and frees the slot.
     */
    public synchronized void poll() {
        if (terminated) {
            return;
        }
        // the run this read is for, on every log line of it (JSON logs: docs/decisions/1505)
        org.slf4j.MDC.put(MDC_PIPELINE, pipelineFqn);
        org.slf4j.MDC.put(MDC_RUN_ID, runId);
        try {
            long bytes = drain();
            if (!terminated) {
                EndReason reason = endReason(bytes);
                if (reason != null) {
                    complete(reason);
                } else {
                    endCappedViewers();
                }
            }
        } catch (SourceUnavailableException e) {
            metrics.backendError(true);
            LOG.info("log of {}/{} is unavailable: {}", pipelineFqn, runId, e.getMessage());
            fail(e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("log stream of {}/{} failed and is being closed", pipelineFqn, runId, e);
            fail("The log stream failed on the server. Reconnect with the last cursor to resume.");
        } finally {
            org.slf4j.MDC.remove(MDC_PIPELINE);
            org.slf4j.MDC.remove(MDC_RUN_ID);
        }
    }

    /** True once ended. */
    public synchronized boolean isTerminated() {
        return terminated;
    }

    /** Viewers attached now. */
    public synchronized int viewerCount() {
        return viewers.size();
    }

    /** The cursor after everything read so far. */
    public synchronized String cursor() {
        return cursor;
    }

    /** The run id. */
    public String runId() {
        return runId;
    }

    /** Ends the tailer, closing viewers without {@code complete} (server shutdown). */
    public void shutdown() {
        List<Viewer> all;
        synchronized (this) {
            all = List.copyOf(viewers);
            viewers.clear();
            stop();
        }
        all.forEach(Viewer::close);
    }

    private long drain() {
        long bytes = 0;
        int reads = 0;
        try {
            boolean again = true;
            while (again && reads < settings.maxReadsPerTick()) {
                reads++;
                Page page = readPage(settings.maxBytesPerTick() - bytes);
                if (page == null) {
                    break;
                }
                bytes += apply(page);
                again = page.more() && bytes < settings.maxBytesPerTick() && !terminated;
            }
        } finally {
            metrics.poll(reads);
        }
        if (bytes > 0) {
            lastContentAt = ticker.nanos();
        }
        return bytes;
    }

    /** One backend read; null after a transient failure (the stream goes on, the tick ends). */
    private Page readPage(long byteBudget) {
        try {
            return source.read(cursor, settings.linesPerRead(), byteBudget);
        } catch (IOException e) {
            metrics.backendError(false);
            LOG.debug("no log content for {}/{} on this poll: {}", pipelineFqn, runId, e.toString());
            return null;
        } finally {
            metrics.backendRead(source.kind());
        }
    }

    /** Takes a page in: buffer, publish, fan out. Returns its UTF-8 size. */
    private long apply(Page page) {
        if (page.restarted()) {
            buffer.clear();
            bufferBytes = 0;
            bufferStart = page.cursorBefore();
            restartPending = true;
        }
        if (page.cursorAfter().equals(page.cursorBefore()) && page.isEmpty()) {
            return 0;
        }
        long size = page.bytes();
        publish(new Chunk(page.cursorBefore(), page.cursorAfter(), page.text(), size));
        return size;
    }

    private void publish(Chunk chunk) {
        cursor = chunk.after();
        buffer.addLast(chunk);
        bufferBytes += chunk.bytes();
        while (bufferBytes > settings.maxReplayBytes() && buffer.size() > 1) {
            Chunk evicted = buffer.removeFirst();
            bufferBytes -= evicted.bytes();
            bufferStart = evicted.after();
        }
        publisher.publish(new LogChunk(pipelineFqn, runId, chunk.before(), chunk.after(), chunk.text(),
                System.currentTimeMillis()));
        if (!chunk.text().isEmpty()) {
            boolean truncated = restartPending;
            restartPending = false;
            broadcast(EventFrames.frame(LogStreamEvent.logs(runId, chunk.text(), chunk.after(), false, truncated)),
                    chunk.after());
        }
    }

    private void broadcast(byte[] frame, String frameCursor) {
        for (Viewer viewer : List.copyOf(viewers)) {
            if (!viewer.sendFrame(frame, frameCursor)) {
                viewers.remove(viewer);
            }
        }
        if (viewers.isEmpty()) {
            stop();
        }
    }

    /** Closes, with their own {@code complete}, the viewers that reached a per-connection cap. */
    private void endCappedViewers() {
        long now = ticker.nanos();
        for (Viewer viewer : List.copyOf(viewers)) {
            EndReason reason = viewer.capReached(now, settings);
            if (reason != null) {
                viewers.remove(viewer);
                metrics.streamEnded(reason.name().toLowerCase(java.util.Locale.ROOT));
                viewer.finish(completeEvent(reason));
            }
        }
        if (viewers.isEmpty()) {
            stop();
        }
    }

    /** The reader's own stop rules: idle, or quiet after its run finished (per-viewer caps are apart). */
    private EndReason endReason(long bytesThisTick) {
        if (secondsSince(lastContentAt) >= settings.maxIdleSeconds()) {
            return EndReason.IDLE_TIMEOUT;
        }
        if (bytesThisTick == 0) {
            long quiet = secondsSince(lastContentAt);
            RunState state = runState();
            if (state == RunState.FINISHED && quiet >= settings.finishGraceSeconds()
                    || state == RunState.UNKNOWN && quiet >= settings.unknownRunGraceSeconds()) {
                return EndReason.RUN_FINISHED;
            }
        }
        return null;
    }

    /** Looked up at most once per {@code runProbeSeconds}, never again once finished; a failed lookup = RUNNING. */
    private RunState runState() {
        if (lastState != RunState.FINISHED && (!probed || secondsSince(lastProbeAt) >= settings.runProbeSeconds())) {
            lastProbeAt = ticker.nanos();
            probed = true;
            try {
                lastState = states.state(pipelineFqn, runId);
            } catch (RuntimeException e) {
                LOG.debug("could not read the state of {}/{}: {}", pipelineFqn, runId, e.toString());
                lastState = RunState.RUNNING;
            }
        }
        return lastState;
    }

    private void complete(EndReason reason) {
        end(completeEvent(reason), reason.name());
    }

    private LogStreamEvent completeEvent(EndReason reason) {
        LogStreamEvent base = LogStreamEvent.complete(runId, cursor, reason);
        return new LogStreamEvent(base.eventType(), runId, null, cursor, null, null, reason, message(reason));
    }

    private void fail(String message) {
        end(new LogStreamEvent(LogStreamEvent.EventType.ERROR, runId, null, cursor, null, null, null, message),
                "ERROR");
    }

    private void end(LogStreamEvent last, String reason) {
        List<Viewer> all = List.copyOf(viewers);
        viewers.clear();
        stop();
        metrics.streamEnded(reason.toLowerCase(java.util.Locale.ROOT));
        all.forEach(viewer -> viewer.finish(last));
    }

    private void stop() {
        if (!terminated) {
            terminated = true;
            buffer.clear();
            bufferBytes = 0;
            source.close();
            onTerminate.run();
        }
    }

    private LogStreamEvent replayEvent(Chunk chunk) {
        return LogStreamEvent.logs(runId, chunk.text(), chunk.after(), true, false);
    }

    /** The chunks after {@code from} in a chain starting at {@code start}; null when {@code from} is not in it. */
    private static List<Chunk> after(List<Chunk> chain, String start, String from) {
        if (from.equals(start)) {
            return nonEmpty(chain);
        }
        for (int i = 0; i < chain.size(); i++) {
            if (chain.get(i).after().equals(from)) {
                return nonEmpty(chain.subList(i + 1, chain.size()));
            }
        }
        return null;
    }

    private static List<Chunk> nonEmpty(List<Chunk> chunks) {
        return chunks.stream().filter(c -> !c.text().isEmpty()).toList();
    }

    private long secondsSince(long nanos) {
        return (ticker.nanos() - nanos) / NANOS_PER_SECOND;
    }

    private String message(EndReason reason) {
        return switch (reason) {
            case RUN_FINISHED -> null;
            case MAX_BYTES -> "This connection reached its size limit (stream.maxStreamBytes = "
                    + settings.maxStreamBytes() + " bytes). Download the whole log for the rest of this run.";
            case MAX_DURATION -> "This connection reached its lifetime limit (stream.maxStreamSeconds = "
                    + settings.maxStreamSeconds() + " s). Reconnect with the last cursor to resume.";
            case IDLE_TIMEOUT -> "No new logs for this run. Reconnect with the last cursor to resume.";
        };
    }
}
