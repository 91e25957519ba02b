package io.changestream.logs.source;

import java.io.IOException;

/**
 * The log of one run in one backend, read forward from opaque cursors. A source never rewinds on an empty page and
 * restarts from {@link #startCursor()} (flagging {@link Page#restarted()}) only when a cursor cannot be parsed.
 * One tailer's poll thread calls {@link #read} at a time; request threads may call it for the paging endpoints, so
 * implementations are thread-safe.
 */
public interface LogSource extends AutoCloseable {

    /** Short name of the backend kind, part of the tailer key: {@code storage}, {@code s3} or {@code airflow}. */
    String kind();

    /** The cursor at the beginning of the run's log. */
    String startCursor();

    /**
     * Reads the text after {@code cursor} (null = {@link #startCursor()}), at most {@code maxLines} lines and about
     * {@code maxBytes} bytes (a single longer line is returned whole).
     *
     * @throws IOException                                                   a transient failure; read again later
     * @throws io.changestream.logs.source.SourceUnavailableException the log is gone for good
     */
    Page read(String cursor, int maxLines, long maxBytes) throws IOException;

    /**
     * Runs of this backend that may be tailed at once ({@code <kind>.maxActiveRuns}); unbounded for local storage,
     * whose reads cost no remote call.
     */
    default int maxActiveRuns() {
        return Integer.MAX_VALUE;
    }

    /** The directory whose changes mean new content, when the backend can be watched (storage); else empty. */
    default java.util.Optional<java.nio.file.Path> watchDirectory() {
        return java.util.Optional.empty();
    }

    /**
     * A source of the same run for a second reader (a viewer catching up from a cursor no other reader can serve):
     * a new instance when this one keeps per-reader state, else this one.
     */
    default LogSource reopen() {
        return this;
    }

    /** Releases what the source keeps open (a file handle); reading again reopens it. Idempotent. */
    @Override
    default void close() {
    }
}
