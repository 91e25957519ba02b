package io.changestream.alerts.digest;

/** A subscription's trigger or grouping cannot be used; names the request field (a 400 at save). */
public final class DigestConfigException extends RuntimeException {

    private final String field;

    public DigestConfigException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The request field, e.g. {@code grouping.groupBy[1]} or {@code trigger.cronExpression}. */
    public String field() {
        return field;
    }

    /** The message without the field. */
    public String reason() {
        return getMessage().substring(field.length() + 2);
    }
}
