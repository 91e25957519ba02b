package io.changestream.alerts.filter;

/** Root of the filter package's exceptions (unchecked). */
public class FilterException extends RuntimeException {

    public FilterException(String message) {
        super(message);
    }

    public FilterException(String message, Throwable cause) {
        super(message, cause);
    }
}
