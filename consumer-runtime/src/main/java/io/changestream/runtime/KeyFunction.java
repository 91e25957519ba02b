package io.changestream.runtime;

import java.nio.ByteBuffer;

/**
 * KeyBy: the routing key of an event. Events with equal routing keys go to the same lane and are processed in offset
 * order, also across retries. Called on consumer threads, so it must be cheap and thread-safe; the result needs
 * {@code equals} and {@code hashCode}.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface KeyFunction<K, V> {

    /**
     * The record key, {@code byte[]} keys compared by content: the one instance {@link #recordKey()} returns, so the
     * runtime recognises the default and reads the key straight from the polled record.
     */
    KeyFunction<Object, Object> RECORD_KEY = event -> event.key() instanceof byte[] bytes ? ByteBuffer.wrap(bytes)
            : event.key();

    /** The routing key of {@code event}; null means "no ordering needed" (the event is spread by its offset). */
    Object routingKey(Event<K, V> event);

    /**
     * The default: the record key ({@code byte[]} keys are compared by content). Always the same instance, so the
     * runtime recognises it and reads the key straight from the polled record.
     */
    @SuppressWarnings("unchecked")
    static <K, V> KeyFunction<K, V> recordKey() {
        return (KeyFunction<K, V>) RECORD_KEY;
    }
}
