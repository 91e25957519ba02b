package io.changestream.runtime;

import java.util.concurrent.CompletionException;

/** What every asynchronous caller of ours needs of a failed {@link java.util.concurrent.CompletionStage}. Stateless. */
public final class Stages {

    private Stages() {
    }

    /** The cause a {@link CompletionException} wraps, else the error itself: what a stage's failure really was. */
    public static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
