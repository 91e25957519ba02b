package io.changestream.alerts.filter;

/**
 * Evaluating a compiled condition against one event failed (e.g. the event's {@code entity} is not valid JSON).
 * Not retriable: the same event fails the same way, so the pipeline dead-letters it with source PUBLISHER.
 */
public final class FilterEvaluationException extends FilterException {

    public FilterEvaluationException(String message, Throwable cause) {
        super(message, cause);
    }

    public FilterEvaluationException(String message) {
        super(message);
    }
}
