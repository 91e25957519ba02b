package io.changestream.logs.source;

/**
 * A log backend failure that will not heal by polling again (the run's log was deleted, the backend refuses our
 * credentials). A tailer that gets one ends its stream with an {@code error} event and frees its run slot. Transient
 * failures are plain {@link java.io.IOException}s: the tailer keeps the stream and polls again.
 */
public class SourceUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A fatal source failure with a message fit to show a viewer. */
    public SourceUnavailableException(String message) {
        super(message);
    }

    /** A fatal source failure with a message fit to show a viewer, and its cause. */
    public SourceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
