package io.changestream.logs.engine;

/**
 * The transport under one {@link Viewer}: an SSE response in production, a list in tests. {@link #write} never
 * blocks; bytes not yet on the wire are reported by {@link #pendingBytes()}. Called by poll, heartbeat and request
 * threads; implementations are thread-safe.
 */
public interface ViewerSink {

    /** Queues one whole SSE frame for writing. Ignored after {@link #close()}. */
    void write(byte[] frame);

    /**
     * Queues one whole SSE frame that ends at {@code cursorAfter} (null: a frame without a cursor, a heartbeat);
     * the sink remembers the cursor of the last frame it handed to the connection, for {@link #truncate}.
     */
    default void write(byte[] frame, String cursorAfter) {
        write(frame);
    }

    /**
     * Cuts a viewer that fell behind: discards every queued frame not yet handed to the connection, writes the frame
     * {@code notice} makes from the cursor of the last frame that was (null when none was), and ends the response
     * once that is written (or the connection's idle timeout ends it). Idempotent; ignored once closed.
     */
    void truncate(java.util.function.Function<String, byte[]> notice);

    /** UTF-8 bytes handed to {@link #write} but not yet written to the connection. */
    long pendingBytes();

    /** Flushes what is queued (best effort) and ends the response. Idempotent. */
    void close();

    /** Ends the response at once, discarding what is queued (a dropped slow viewer). Idempotent. */
    void abort();
}
