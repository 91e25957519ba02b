package io.changestream.logs.engine;

import io.changestream.topics.model.LogChunk;
import java.util.List;
import java.util.Set;

/**
 * Replays a run's chunks exactly from a cursor out of durable storage (the {@code log-chunks} topic) until the chain
 * of chunks reaches one of the cursors the live tailer still holds in memory. Called on the replay executor; may
 * block for a bounded time.
 */
@FunctionalInterface
public interface Replayer {

    /** A replayer with no durable storage: nothing can be replayed. */
    Replayer NONE = (fqn, runId, from, stops, maxBytes) -> Result.NOT_FOUND;

    /**
     * The chunks from {@code fromCursor} on, each starting where the previous ended, until one ends at a cursor in
     * {@code stopCursors}; at most {@code maxBytes} of text.
     */
    Result replay(String pipelineFqn, String runId, String fromCursor, Set<String> stopCursors, long maxBytes);

    /**
     * What a replay found.
     *
     * @param chunks        the chunks read, contiguous from the requested cursor
     * @param reachedCursor the stop cursor the chain reached; null when the storage no longer holds the whole range
     */
    record Result(List<LogChunk> chunks, String reachedCursor) {

        /** Nothing found. */
        public static final Result NOT_FOUND = new Result(List.of(), null);

        public Result {
            chunks = List.copyOf(chunks);
        }

        /** True when the replay joined the live buffer. */
        public boolean reached() {
            return reachedCursor != null;
        }
    }
}
