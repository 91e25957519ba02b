package io.changestream.runtime;

/** How {@link ConsumerRuntime#close(CloseMode, java.time.Duration)} treats work already taken in. */
public enum CloseMode {
    /**
     * Stop taking in records, finish every record already polled (queued, running, waiting for a retry) until the
     * timeout, commit, then leave the group. What SIGTERM does.
     */
    DRAIN,
    /**
     * Stop at once: events running now may finish within the timeout, queued and waiting ones are dropped; commit
     * what is done and leave. The next owner re-processes the rest.
     */
    DONT_DRAIN
}
