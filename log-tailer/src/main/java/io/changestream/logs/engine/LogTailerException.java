package io.changestream.logs.engine;

/** Root unchecked exception of the log-tailer module. */
public class LogTailerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message. */
    public LogTailerException(String message) {
        super(message);
    }

    /** An exception with a message and a cause. */
    public LogTailerException(String message, Throwable cause) {
        super(message, cause);
    }
}
