package io.changestream.alerts.destination;

/**
 * A destination's {@code config} is invalid (missing endpoint, bad URL, refused address, no receivers). Thrown by
 * the validators at save time (the REST layer answers 400 naming {@link #field()}); at delivery time the same
 * problem becomes a PERMANENT result.
 */
public final class DestinationConfigException extends RuntimeException {

    private final String field;

    public DestinationConfigException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The config field at fault, relative to the destination (e.g. {@code config.endpoint}). */
    public String field() {
        return field;
    }
}
