package io.changestream.logs.engine;

/**
 * The transport under one {@link Viewer}: an SSE response in production, a list in tests. {@link #write} never
 * blocks; bytes not yet on the wire are reported by {@link #pendingBytes()}. Called by poll, heartbeat and request
 * threads; implementations are thread-safe.
 */
public interface ViewerSink {

    /** Queues one whole SSE frame for writing. Ignored after {@link #close()}. */
    void write(byte[] frame);

    /** UTF-8 bytes handed to {@link #write} but not yet written to the connection. */
    long pendingBytes();

    /** Flushes what is queued (best effort) and ends the response. Idempotent. */
    void close();

    /** Ends the response at once, discarding what is queued (a dropped slow viewer). Idempotent. */
    void abort();
}
