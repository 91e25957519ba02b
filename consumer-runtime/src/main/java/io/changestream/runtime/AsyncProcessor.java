package io.changestream.runtime;

import java.util.concurrent.CompletionStage;

/**
 * The user's work on one event, asynchronously: {@link #process} starts the work and returns at once; the stage
 * completes with the {@link Outcome} (or exceptionally, which counts like a thrown exception of a {@link Processor}:
 * a {@link RetryLaterException} or Kafka's {@link org.apache.kafka.common.errors.RetriableException} is retried, any
 * other is a final failure). No lane thread waits for the call, so a lane runs up to
 * {@link RuntimeConfig#maxCallsPerLane()} calls at once and the runtime up to {@link RuntimeConfig#maxCalls()}.
 *
 * <p>The guarantees are the synchronous processor's: a key's next event starts only when the stage of its previous
 * one has completed (offset order per key, also across retries); a stage not completed within
 * {@link RuntimeConfig#processingTimeout()} is a final failure (the runtime cancels it and ignores a late
 * completion); retries, the delay queue, commits and revokes behave the same.
 *
 * <p>{@code process} is called on a lane thread and must not block; the stage may complete on any thread.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface AsyncProcessor<K, V> {

    /** Starts processing {@code event}; the stage says how it went. Never returns null. */
    CompletionStage<Outcome> process(Event<K, V> event);
}
