package io.changestream.runtime;

/**
 * Receives events that finally failed (fail outcome, retries exhausted, not retriable, timed out) before they are
 * marked done; the alert service sends them to its dead-letter topic. Called on the event's lane thread.
 *
 * <p>If the handler throws, the runtime keeps the event (and the later events of its key) parked and calls the
 * handler again after the backoff, for as long as it takes: an event is never marked done unless the handler
 * accepted it. The default handler logs and returns.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface FailureHandler<K, V> {

    /** Takes responsibility for {@code event}, which finally failed as {@code failure} says. */
    void onFailure(Event<K, V> event, Failure failure) throws Exception;
}
