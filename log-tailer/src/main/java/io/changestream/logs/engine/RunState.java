package io.changestream.logs.engine;

import io.changestream.topics.model.PipelineRunStatus;

/**
 * What the server knows about a streamed run, from the {@code pipeline-status} view.
 */
public enum RunState {
    /** Queued or running: the log may still grow; the stream is never closed as finished. */
    RUNNING,
    /** Success, failed, partialSuccess or stopped: closed after {@code finishGraceSeconds} of quiet. */
    FINISHED,
    /** No status row (aged out, or triggered a moment ago): closed after {@code unknownRunGraceSeconds}. */
    UNKNOWN;

    /** The state of a status row; null means no row. */
    public static RunState of(PipelineRunStatus status) {
        if (status == null) {
            return UNKNOWN;
        }
        return status.state().isTerminal() ? FINISHED : RUNNING;
    }
}
