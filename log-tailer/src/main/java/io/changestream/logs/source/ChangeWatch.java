package io.changestream.logs.source;

import java.nio.file.Path;

/**
 * Tells the engine when a watched log directory changed, so its tailer polls at once. Registrations come from
 * request threads; callbacks run on the implementation's thread and must be short.
 */
@FunctionalInterface
public interface ChangeWatch {

    /** No watching: tailers poll on their schedule only. */
    ChangeWatch NONE = (dir, onChange) -> () -> { };

    /** Calls {@code onChange} when something in {@code dir} changes; closing the result stops it. */
    AutoCloseable watch(Path dir, Runnable onChange);
}
