package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * State of an ingestion pipeline run, serialized as the platform's strings
 * ({@code queued|running|success|failed|partialSuccess|stopped}).
 */
public enum PipelineState {
    /** Accepted, not started yet. */
    @JsonProperty("queued") QUEUED,
    /** Running; logs are growing. */
    @JsonProperty("running") RUNNING,
    /** Finished without errors. */
    @JsonProperty("success") SUCCESS,
    /** Finished with a failure. */
    @JsonProperty("failed") FAILED,
    /** Finished, some steps failed. */
    @JsonProperty("partialSuccess") PARTIAL_SUCCESS,
    /** Stopped by a user or the scheduler. */
    @JsonProperty("stopped") STOPPED;

    /** True when the run will not produce more logs: success, failed, partialSuccess or stopped. */
    public boolean isTerminal() {
        return this != QUEUED && this != RUNNING;
    }
}
