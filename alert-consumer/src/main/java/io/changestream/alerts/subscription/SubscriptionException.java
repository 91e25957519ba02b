package io.changestream.alerts.subscription;

/**
 * Root of the subscription package's exceptions; {@link #status()} is the HTTP status the REST layer answers with.
 */
public class SubscriptionException extends RuntimeException {

    private final int status;

    public SubscriptionException(int status, String message) {
        super(message);
        this.status = status;
    }

    public SubscriptionException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** HTTP status: 400 invalid, 404 unknown, 409 duplicate name, 503 store unavailable. */
    public int status() {
        return status;
    }

    /** 400: a request field is invalid; the message starts with the field's JSON path. */
    public static SubscriptionException invalid(String field, String message) {
        return new Invalid(field, message);
    }

    /** 404. */
    public static SubscriptionException notFound(String what) {
        return new SubscriptionException(404, "eventSubscription " + what + " not found");
    }

    /** 409. */
    public static SubscriptionException duplicateName(String name) {
        return new SubscriptionException(409, "eventSubscription with name '" + name + "' already exists");
    }

    /** A 400 that names the offending field. */
    public static final class Invalid extends SubscriptionException {

        private final String field;

        Invalid(String field, String message) {
            super(400, field + ": " + message);
            this.field = field;
        }

        /** JSON path of the offending field, e.g. {@code destinations[0].config.endpoint}. */
        public String field() {
            return field;
        }
    }
}
