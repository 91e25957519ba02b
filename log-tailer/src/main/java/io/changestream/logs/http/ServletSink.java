package io.changestream.logs.http;

import io.changestream.logs.engine.Viewer;
import io.changestream.logs.engine.ViewerSink;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import org.eclipse.jetty.ee10.servlet.HttpOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * An SSE response written with non-blocking servlet output: frames queue here and are written whenever the
 * connection can take them ({@link WriteListener}), so a slow client never blocks a poll thread and its backlog is
 * visible as {@link #pendingBytes()}. Ends the async request on close; tells the {@link Viewer} when the client went
 * away. Called by poll, heartbeat and Jetty threads; guarded by its own lock.
 */
final class ServletSink implements ViewerSink, WriteListener, AsyncListener {

    private final AsyncContext async;
    private final ServletOutputStream out;
    /** A queued frame and the cursor it ends at (null: none). */
    private record Frame(byte[] bytes, String cursor) {
    }

    private final Queue<Frame> queue = new ArrayDeque<>();
    private long pending;
    private String writtenCursor;
    private boolean closeConnection;
    private boolean closing;
    private boolean completed;
    private boolean needsFlush;
    private volatile Viewer viewer;
    private final Runnable hardClose;

    /**
     * A sink on an async response.
     *
     * @param hardClose closes the connection at once (a dropped viewer must not keep its socket and its unsent
     *                  bytes until the idle timeout)
     */
    ServletSink(AsyncContext async, Runnable hardClose) throws IOException {
        this.async = async;
        this.hardClose = hardClose;
        this.out = async.getResponse().getOutputStream();
        async.addListener(this);
    }

    /** Binds the viewer and starts non-blocking writing. */
    void start(Viewer boundViewer) {
        this.viewer = boundViewer;
        out.setWriteListener(this);
    }

    @Override
    public void write(byte[] frame) {
        write(frame, null);
    }

    @Override
    public void write(byte[] frame, String cursorAfter) {
        synchronized (this) {
            if (closing || completed) {
                return;
            }
            queue.add(new Frame(frame, cursorAfter));
            pending += frame.length;
        }
        drain();
    }

    @Override
    public void truncate(java.util.function.Function<String, byte[]> notice) {
        synchronized (this) {
            if (closing || completed) {
                return;
            }
            queue.clear();
            byte[] last = notice.apply(writtenCursor);
            queue.add(new Frame(last, null));
            pending = last.length;
            closing = true;
            // once the notice is on the connection it ends too (not kept alive): a cut viewer holds no socket
            closeConnection = true;
        }
        drain();
    }

    @Override
    public synchronized long pendingBytes() {
        return pending;
    }

    @Override
    public void close() {
        synchronized (this) {
            closing = true;
        }
        drain();
    }

    @Override
    public void abort() {
        synchronized (this) {
            queue.clear();
            pending = 0;
            closing = true;
        }
        hardClose.run();
        complete();
    }

    @Override
    public void onWritePossible() {
        drain();
    }

    @Override
    public void onError(Throwable t) {
        gone();
    }

    @Override
    public void onComplete(AsyncEvent event) {
        gone();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        gone();
    }

    @Override
    public void onError(AsyncEvent event) {
        gone();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // not re-dispatched
    }

    private void drain() {
        boolean finish = false;
        synchronized (this) {
            if (completed || viewer == null) {
                return;
            }
            try {
                while (out.isReady()) {
                    Frame next = queue.poll();
                    if (next != null) {
                        writeFrame(next.bytes());
                        pending -= next.bytes().length;
                        if (next.cursor() != null) {
                            writtenCursor = next.cursor();
                        }
                        needsFlush = true;
                    } else if (needsFlush) {
                        needsFlush = false;
                        out.flush();
                    } else {
                        finish = closing;
                        break;
                    }
                }
            } catch (IOException | IllegalStateException e) {
                queue.clear();
                pending = 0;
                finish = true;
            }
        }
        if (finish) {
            complete();
        }
    }

    /**
     * Jetty's {@code write(byte[])} copies small writes into a pooled aggregation buffer (a direct buffer taken per
     * write); {@code write(ByteBuffer)} sends the frame as it is, which matters at 10,000 connections.
     */
    private void writeFrame(byte[] frame) throws IOException {
        if (out instanceof HttpOutput jetty) {
            jetty.write(ByteBuffer.wrap(frame));
        } else {
            out.write(frame);
        }
    }

    private void complete() {
        boolean hard;
        synchronized (this) {
            if (completed) {
                return;
            }
            completed = true;
            hard = closeConnection;
        }
        try {
            async.complete();
        } catch (IllegalStateException e) {
            // already completed by the container (client gone)
        }
        if (hard) {
            hardClose.run();
        }
        gone();
    }

    private void gone() {
        synchronized (this) {
            completed = true;
            queue.clear();
            pending = 0;
        }
        Viewer v = viewer;
        if (v != null) {
            v.transportClosed();
        }
    }
}
