package io.changestream.logs.engine;

/**
 * The engine's monotonic time source, injected so tests run on a fake clock. Any thread.
 */
@FunctionalInterface
public interface Ticker {

    /** The system ticker ({@link System#nanoTime()}). */
    Ticker SYSTEM = System::nanoTime;

    /** Monotonic nanoseconds; only differences are meaningful. */
    long nanos();
}
