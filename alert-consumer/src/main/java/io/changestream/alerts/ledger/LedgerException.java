package io.changestream.alerts.ledger;

import io.changestream.runtime.RetryLaterException;

/**
 * A ledger write was not acked in time (or failed): the pair is not proven settled, so the event is not marked done
 * and the runtime retries it. Retriable.
 */
public final class LedgerException extends RetryLaterException {

    private static final long serialVersionUID = 1L;

    public LedgerException(String message, Throwable cause) {
        super(message, cause);
    }
}
