package io.changestream.ops;

/**
 * Root unchecked exception of the ops module: an operation that could not be done (the launcher exits with 1).
 * {@link UsageException} marks a mistake in what the user asked for (exit 2).
 */
public class OpsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with a one-line reason meant for the operator. */
    public OpsException(String message) {
        super(message);
    }

    /** A failure with a one-line reason and its cause. */
    public OpsException(String message, Throwable cause) {
        super(message, cause);
    }
}
