package io.changestream.logs.engine;

import io.changestream.topics.model.LogChunk;

/**
 * Receives every chunk a tailer reads, in order per run (the {@code log-chunks} topic in production). Called on poll
 * threads under the tailer's lock: implementations must not block for long.
 */
@FunctionalInterface
public interface ChunkPublisher {

    /** Publishes nothing (no Kafka configured). */
    ChunkPublisher NONE = chunk -> { };

    /** Hands one chunk over; never throws for a delivery failure (count it instead). */
    void publish(LogChunk chunk);
}
