package io.changestream.runtime;

import java.nio.ByteBuffer;

/** {@link KeyFunction#recordKey()}: one instance, so the runtime can tell the default from a custom function. */
enum RecordKey implements KeyFunction<Object, Object> {
    INSTANCE;

    @Override
    public Object routingKey(Event<Object, Object> event) {
        return event.key() instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : event.key();
    }
}
