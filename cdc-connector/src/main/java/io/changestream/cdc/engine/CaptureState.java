package io.changestream.cdc.engine;

import java.util.EnumSet;
import java.util.Set;

/** Lifecycle of a {@link CaptureLoop}; changed only by {@link CaptureLoop}'s one compare-and-set method. */
public enum CaptureState {
    /** Built, not started. */
    NEW,
    /** A standby: waiting for the lease while another instance reads. */
    WAITING_FOR_LEASE,
    /** The engine runs (ready once Debezium reports it is connected to the log). */
    RUNNING,
    /** The engine stopped with an error or lost its lease; restarts after {@code restart.backoff.ms}. */
    BACKING_OFF,
    /** Stop requested: the engine flushes, commits offsets and closes. */
    STOPPING,
    /** Everything closed. */
    STOPPED;

    /** The states this one may be entered from. */
    Set<CaptureState> predecessors() {
        return switch (this) {
            case NEW -> EnumSet.noneOf(CaptureState.class);
            case WAITING_FOR_LEASE -> EnumSet.of(NEW, BACKING_OFF);
            case RUNNING -> EnumSet.of(NEW, WAITING_FOR_LEASE, BACKING_OFF);
            case BACKING_OFF -> EnumSet.of(RUNNING);
            case STOPPING -> EnumSet.of(NEW, WAITING_FOR_LEASE, RUNNING, BACKING_OFF);
            case STOPPED -> EnumSet.of(NEW, STOPPING);
        };
    }
}
