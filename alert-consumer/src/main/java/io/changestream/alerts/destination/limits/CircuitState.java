package io.changestream.alerts.destination.limits;

import java.util.EnumSet;
import java.util.Set;

/**
 * State of one destination's circuit breaker.
 *
 * <table>
 * <caption>Allowed moves</caption>
 * <tr><th>to</th><th>from</th></tr>
 * <tr><td>CLOSED</td><td>HALF_OPEN (the trial succeeded)</td></tr>
 * <tr><td>OPEN</td><td>CLOSED (failure threshold reached), HALF_OPEN (the trial failed)</td></tr>
 * <tr><td>HALF_OPEN</td><td>OPEN (open duration elapsed)</td></tr>
 * </table>
 */
public enum CircuitState {
    /** Deliveries go through; consecutive transient failures are counted. */
    CLOSED,
    /** Deliveries are refused at once (RETRY) until the open duration has passed. */
    OPEN,
    /** A bounded number of trial deliveries go through; their outcome closes or re-opens the circuit. */
    HALF_OPEN;

    /** The states this one may be entered from. */
    Set<CircuitState> predecessors() {
        return switch (this) {
            case CLOSED -> EnumSet.of(HALF_OPEN);
            case OPEN -> EnumSet.of(CLOSED, HALF_OPEN);
            case HALF_OPEN -> EnumSet.of(OPEN);
        };
    }
}
