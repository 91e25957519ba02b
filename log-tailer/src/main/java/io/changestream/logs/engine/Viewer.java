package io.changestream.logs.engine;

import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EndReason;
import java.util.ArrayList;
import java.util.List;

/**
 * One client attached to a run's stream. Counts what its {@link ViewerSink} has not written yet plus what it holds
 * back during a Kafka replay, and drops itself — closing the connection without a {@code complete} event, so the
 * client reconnects with its cursor — when that would pass {@code maxPendingBytesPerClient} (UTF-8 bytes).
 * Keeps its own lifetime and byte count for the per-connection caps {@code maxStreamSeconds} and
 * {@code maxStreamBytes}: a tab joining an old run gets its own hour and its own 32 MiB.
 * Called by poll, heartbeat, replay and request threads; all methods are synchronized.
 */
public final class Viewer {

    private final String runId;
    private final ViewerSink sink;
    private final long maxPendingBytes;
    private final LogMetrics metrics;
    private final List<byte[]> held = new ArrayList<>();
    private long heldBytes;
    private boolean holding;
    private boolean open = true;
    private long nextBeat = Long.MIN_VALUE;
    private long openedAt;
    private boolean started;
    private long streamedBytes;
    private Runnable onGone = () -> { };

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
        return sendFrame(EventFrames.frame(event));
    }

    /** Sends one encoded frame (shared by every viewer of a broadcast); false when closed or dropped. */
    public boolean sendFrame(byte[] frame) {
        Runnable gone;
        synchronized (this) {
            if (!open) {
                return false;
            }
            gone = offer(frame);
        }
        if (gone == null) {
            return true;
        }
        gone.run();
        return false;
    }

    /** Queues or holds one frame; returns the gone-action when this call dropped the viewer, else null. */
    private Runnable offer(byte[] frame) {
        if (sink.pendingBytes() + heldBytes + frame.length > maxPendingBytes) {
            metrics.dropped();
            Runnable gone = markClosed();
            sink.abort();
            return gone;
        }
        if (holding) {
            held.add(frame);
            heldBytes += frame.length;
        } else {
            write(frame);
        }
        return null;
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
            List<byte[]> live = new ArrayList<>(held);
            held.clear();
            heldBytes = 0;
            List<byte[]> frames = new ArrayList<>(replayFirst.size() + live.size());
            replayFirst.forEach(event -> frames.add(EventFrames.frame(event)));
            frames.addAll(live);
            for (byte[] frame : frames) {
                gone = offer(frame);
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
            gone = holding ? null : offer(EventFrames.frame(last));
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

    private void write(byte[] frame) {
        sink.write(frame);
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
        onGone = () -> { };
        return gone;
    }
}
