package io.changestream.logs.source;

import java.io.IOException;

/** A backend read refused by one of its {@link ReadLimits}; the message names the setting. */
public final class ReadLimitException {

    private ReadLimitException() {
    }

    /** Every read permit is taken: transient, the poll reads again next tick; a paging request gets 503. */
    public static final class Busy extends IOException {

        private static final long serialVersionUID = 1L;

        /** An exception with a message naming the setting. */
        public Busy(String message) {
            super(message);
        }
    }

    /** The answer is larger than {@code maxResponseBytes}: final for a stream ({@code error}); 413 for paging. */
    public static final class TooLarge extends SourceUnavailableException {

        private static final long serialVersionUID = 1L;

        /** An exception with a message naming the setting. */
        public TooLarge(String message) {
            super(message);
        }
    }
}
