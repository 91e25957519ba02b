package io.changestream.logs.source;

import java.io.IOException;

/**
 * The backend answered that it holds no log for the run yet (no object, no DAG run, no task log). Transient for a
 * stream (the run may not have written yet); a 404 for the paging endpoints.
 */
public final class MissingLogException extends IOException {

    private static final long serialVersionUID = 1L;

    /** An exception with a message for the client. */
    public MissingLogException(String message) {
        super(message);
    }
}
