package io.changestream.runtime;

/** Root of the runtime's unchecked exceptions: misuse or an unrecoverable consumer error. */
public class ConsumerRuntimeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConsumerRuntimeException(String message) {
        super(message);
    }

    public ConsumerRuntimeException(String message, Throwable cause) {
        super(message, cause);
    }
}
