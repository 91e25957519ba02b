package io.changestream.runtime;

import java.util.EnumSet;
import java.util.Set;

/**
 * The lifecycle of a {@link ConsumerRuntime}. Changed only through one compare-and-set that refuses moves not listed
 * in {@link #allowedPredecessors()}.
 */
public enum RuntimeState {
    /** Built, no thread started. */
    NEW,
    /** Consumer and processor threads run; records flow. */
    RUNNING,
    /** {@code close} was called: no new records are taken in; work is drained or dropped per the close mode. */
    CLOSING,
    /** Every thread stopped, final commits done, consumers closed. Terminal. */
    CLOSED,
    /** A consumer thread died on an unrecoverable error; {@code close} still commits and releases the rest. */
    FAILED;

    /** The states this state may be entered from. */
    public Set<RuntimeState> allowedPredecessors() {
        return switch (this) {
            case NEW -> EnumSet.noneOf(RuntimeState.class);
            case RUNNING -> EnumSet.of(NEW);
            case CLOSING -> EnumSet.of(NEW, RUNNING, FAILED);
            case CLOSED -> EnumSet.of(CLOSING);
            case FAILED -> EnumSet.of(RUNNING);
        };
    }
}
