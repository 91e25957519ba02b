package io.changestream.cdc;

/**
 * Root unchecked exception of the cdc-connector: a bad setting, a failed produce, an engine that could not start.
 * {@link Retriable} marks failures the capture loop may retry by restarting the engine.
 */
public class CdcException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CdcException(String message) {
        super(message);
    }

    public CdcException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A failure that a restart of the engine may cure (broker or database briefly unavailable). */
    public static class Retriable extends CdcException {

        private static final long serialVersionUID = 1L;

        public Retriable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
