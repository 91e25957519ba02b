package io.changestream.alerts.startpoint;

/** A request's starting point cannot be used; {@link #field()} names the request field (a 400 at the API). */
public final class StartingPointException extends RuntimeException {

    private final String field;

    public StartingPointException(String field, String reason) {
        super(reason);
        this.field = field;
    }

    /** The request field: {@code startingOffset} or {@code startingTimestamp}. */
    public String field() {
        return field;
    }
}
