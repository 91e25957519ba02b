package io.changestream.testkit;

/** A test component could not be started, reached or stopped. Tests fail on it; they never skip. */
public class HarnessException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public HarnessException(String message) {
        super(message);
    }

    public HarnessException(String message, Throwable cause) {
        super(message, cause);
    }
}
