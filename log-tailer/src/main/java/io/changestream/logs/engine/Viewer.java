package io.changestream.logs.engine;

import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EndReason;
import java.util.ArrayList;
import java.util.List;

/**
 * One client attached to a run's stream. Counts what its {@link ViewerSink} has not written yet plus what it holds
 * back during a Kafka replay (its pending bytes), and cuts itself off when a frame would take that past
 * {@code maxPendingBytesPerClient} (UTF-8 bytes; a viewer with nothing pending always takes the next frame): what is
 * queued is discarded, the client is sent a {@code logs} event with {@code truncated: true}, a message naming the
 * limit and, as {@code after}, the cursor of the last frame it was written (it resumes from there and misses nothing),
 * and the connection is closed. The {@link TailerManager} cuts the viewers furthest behind the same way when all of
 * them together pass {@code maxPendingBytesTotal} ({@link #cutOff}).
 * Keeps its own lifetime and byte count for the per-connection caps {@code maxStreamSeconds} and
 * {@code maxStreamBytes}: a tab joining an old run gets its own hour and its own 32 MiB.
 * Called by poll, heartbeat, replay and request threads; all methods are synchronized.
 */
public final class Viewer {

    private final String runId;
    private final ViewerSink sink;
    private final long maxPendingBytes;
    private final LogMetrics metrics;
    /** A frame held back during a replay, with the cursor it ends at (null: none). */
    private record Held(byte[] frame, String cursor) {
    }

    /** Which budget a viewer went past. */
    public enum Budget {
        /** Its own, {@code stream.maxPendingBytesPerClient}. */
        VIEWER,
        /** All viewers' together, {@code stream.maxPendingBytesTotal}. */
        GLOBAL
    }

    private final List<Held> held = new ArrayList<>();
    private long heldBytes;
    private boolean holding;
    private boolean open = true;
    private long nextBeat = Long.MIN_VALUE;
    private long openedAt;
    private boolean started;
    private long streamedBytes;
    private Runnable onGone = () -> { };
    private Runnable alsoOnGone = () -> { };
    private String resumeCursor;

    /** A viewer of {@code runId} writing to {@code sink}. */
    public Viewer(String runId, ViewerSink sink, long maxPendingBytes, LogMetrics metrics) {
        this.runId = runId;
        this.sink = sink;
        this.maxPendingBytes = maxPendingBytes;
        this.metrics = metrics;
    }

    /** The run this viewer follows. */
    public String runId() {
        return runId;
    }

    /** Sets what runs once when this viewer ends for any reason (set by the manager). */
    public synchronized void onGone(Runnable action) {
        this.onGone = action;
    }

    /**
     * Sets what also runs once when this viewer ends, apart from the manager's {@link #onGone} (the caller's quota
     * lease); runs at once when the viewer has ended already.
     */
    public void alsoOnGone(Runnable action) {
        synchronized (this) {
            if (open) {
                this.alsoOnGone = action;
                return;
            }
        }
        action.run();
    }

    /** The cursor this viewer asked to resume after, the fallback cut-off cursor; later calls keep the first. */
    synchronized void resumeFrom(String cursor) {
        if (resumeCursor == null) {
            resumeCursor = cursor;
        }
    }

    /** Bytes queued for this viewer and not yet on its connection, plus those held back during a replay. */
    public synchronized long pendingBytes() {
        return open ? sink.pendingBytes() + heldBytes : 0;
    }

    /**
     * Cuts this viewer off for going past {@code budget} of {@code limit} bytes: {@code truncated} with its cursor,
     * then closed. False when it was closed already.
     */
    public boolean cutOff(Budget budget, long limit) {
        Runnable gone;
        synchronized (this) {
            if (!open) {
                return false;
            }
            gone = cut(budget, limit);
        }
        gone.run();
        return true;
    }

    /** Starts this connection's lifetime clock at {@code nowNanos}; later calls keep the first start. */
    synchronized void startClock(long nowNanos) {
        if (!started) {
            started = true;
            openedAt = nowNanos;
        }
    }

    /**
     * The per-connection cap this viewer reached at {@code nowNanos}, or null: {@code MAX_BYTES} once it was sent
     * {@code maxStreamBytes} of log frames, {@code MAX_DURATION} once it has been open {@code maxStreamSeconds}.
     * A viewer still waiting for its replay has reached nothing yet.
     */
    synchronized EndReason capReached(long nowNanos, StreamSettings settings) {
        if (!open || holding || !started) {
            return null;
        }
        if (streamedBytes >= settings.maxStreamBytes()) {
            return EndReason.MAX_BYTES;
        }
        if ((nowNanos - openedAt) / 1_000_000_000L >= settings.maxStreamSeconds()) {
            return EndReason.MAX_DURATION;
        }
        return null;
    }

    /** UTF-8 bytes of log frames written to this connection so far (heartbeats not counted). */
    public synchronized long streamedBytes() {
        return streamedBytes;
    }

    /** Sends one event; false when the viewer is closed or was dropped by this call. */
    public boolean send(LogStreamEvent event) {
        return sendFrame(EventFrames.frame(event), event.after());
    }

    /** Sends one encoded frame without a cursor; false when closed or cut off. */
    public boolean sendFrame(byte[] frame) {
        return sendFrame(frame, null);
    }

    /**
     * Sends one encoded frame (shared by every viewer of a broadcast) that ends at {@code cursor}; false when closed
     * or cut off by this call.
     */
    public boolean sendFrame(byte[] frame, String cursor) {
        Runnable gone;
        synchronized (this) {
            if (!open) {
                return false;
            }
            gone = offer(frame, cursor);
        }
        if (gone == null) {
            return true;
        }
        gone.run();
        return false;
    }

    /** Queues or holds one frame; returns the gone-action when this call cut the viewer off, else null. */
    private Runnable offer(byte[] frame, String cursor) {
        long pending = sink.pendingBytes() + heldBytes;
        if (pending > 0 && pending + frame.length > maxPendingBytes) {
            return cut(Budget.VIEWER, maxPendingBytes);
        }
        if (holding) {
            held.add(new Held(frame, cursor));
            heldBytes += frame.length;
        } else {
            write(frame, cursor);
        }
        return null;
    }

    /** Discards what is queued, sends {@code truncated} with the last cursor written, closes; the gone-action. */
    private Runnable cut(Budget budget, long limit) {
        metrics.dropped(budget);
        String fallback = resumeCursor;
        Runnable gone = markClosed();
        sink.truncate(written -> EventFrames.frame(truncatedEvent(written != null ? written : fallback, budget,
                limit)));
        return gone;
    }

    private LogStreamEvent truncatedEvent(String cursor, Budget budget, long limit) {
        String message = budget == Budget.VIEWER
                ? "This viewer fell behind: more than stream.maxPendingBytesPerClient = " + limit
                        + " bytes were waiting for it. Resume from this cursor (?after=) to get the rest."
                : "The server's slow-viewer budget (stream.maxPendingBytesTotal = " + limit + " bytes) is used up"
                        + " and this viewer was among those furthest behind. Resume from this cursor (?after=) to get"
                        + " the rest.";
        return new LogStreamEvent(LogStreamEvent.EventType.LOGS, runId, "", cursor, null, Boolean.TRUE, null,
                message);
    }

    /** Sends the heartbeat comment (subject to the same pending limit). */
    public boolean heartbeat() {
        return sendFrame(EventFrames.HEARTBEAT);
    }

    /**
     * Sends the heartbeat when this viewer's is due: every {@code intervalNanos} from its first check, so viewers
     * that connected at different times beat at different times and no pass writes to every connection at once.
     */
    boolean heartbeatIfDue(long nowNanos, long intervalNanos) {
        synchronized (this) {
            if (nextBeat == Long.MIN_VALUE) {
                nextBeat = nowNanos + intervalNanos;
                return open;
            }
            if (nowNanos - nextBeat < 0) {
                return open;
            }
            nextBeat = Math.max(nextBeat + intervalNanos, nowNanos);
        }
        return heartbeat();
    }

    /** Drops the live frames held back so far (they came from a reader this viewer is leaving); keeps holding. */
    synchronized void dropHeld() {
        held.clear();
        heldBytes = 0;
    }

    /** From now on live frames are held back (a replay is being prepared). */
    synchronized void hold() {
        holding = true;
    }

    /** Writes {@code replayFirst} at once, then the held live frames, and stops holding; false when dropped. */
    boolean release(List<LogStreamEvent> replayFirst) {
        Runnable gone = null;
        synchronized (this) {
            if (!open) {
                return false;
            }
            holding = false;
            List<Held> frames = new ArrayList<>(replayFirst.size() + held.size());
            replayFirst.forEach(event -> frames.add(new Held(EventFrames.frame(event), event.after())));
            frames.addAll(held);
            held.clear();
            heldBytes = 0;
            for (Held frame : frames) {
                gone = offer(frame.frame(), frame.cursor());
                if (gone != null) {
                    break;
                }
            }
        }
        if (gone != null) {
            gone.run();
            return false;
        }
        return true;
    }

    /** Sends a last event and closes the connection normally. */
    public void finish(LogStreamEvent last) {
        Runnable gone;
        synchronized (this) {
            if (!open) {
                return;
            }
            // a viewer still waiting for its replay would get a final cursor past content it never saw:
            // close it without the event, so it reconnects with the cursor it has
            gone = holding ? null : offer(EventFrames.frame(last), last.after());
            holding = false;
            if (gone == null) {
                gone = markClosed();
                sink.close();
            }
        }
        gone.run();
    }

    /** Closes without a final event (the client reconnects with its cursor). */
    public void close() {
        end(true);
    }

    /** Called by the transport when the client went away. */
    public void transportClosed() {
        end(false);
    }

    private void end(boolean closeSink) {
        Runnable gone;
        synchronized (this) {
            if (!open) {
                return;
            }
            gone = markClosed();
            if (closeSink) {
                sink.close();
            }
        }
        gone.run();
    }

    /** True until closed, dropped or disconnected. */
    public synchronized boolean isOpen() {
        return open;
    }

    private void write(byte[] frame, String cursor) {
        sink.write(frame, cursor);
        metrics.sentBytes(frame.length);
        if (frame != EventFrames.HEARTBEAT) {
            streamedBytes += frame.length;
        }
    }

    private Runnable markClosed() {
        open = false;
        held.clear();
        heldBytes = 0;
        Runnable gone = onGone;
        Runnable also = alsoOnGone;
        onGone = () -> { };
        alsoOnGone = () -> { };
        return () -> {
            try {
                gone.run();
            } finally {
                also.run();
            }
        };
    }
}
