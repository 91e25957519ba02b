package io.changestream.runtime;

/**
 * The user's work on one event. Called on a lane's processor thread, one event at a time per lane; events with the
 * same routing key are handed over in offset order, also across retries.
 *
 * <p>Throwing is a failure: a {@link RetryLaterException} (or Kafka's
 * {@link org.apache.kafka.common.errors.RetriableException}) is retried with exponential backoff like
 * {@link Outcome#retryAfter}; any other exception is a final failure. A call running longer than
 * {@link RuntimeConfig#processingTimeout()} is interrupted and counts as a final failure without retry.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface Processor<K, V> {

    /** Processes {@code event} and says how it went; never returns null. */
    Outcome process(Event<K, V> event) throws Exception;
}
