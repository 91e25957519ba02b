package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The value on {@code log-chunks} (key = {@code pipelineFqn/runId}): one piece of a run's log as a tailer read it.
 * Chunks of a run are contiguous: each chunk's {@code cursorBefore} is the previous chunk's {@code cursorAfter}, so
 * any server can replay exactly from a viewer's cursor. Cursors are opaque strings.
 *
 * @param pipelineFqn  pipeline FQN; required
 * @param runId        run id; required
 * @param cursorBefore cursor before this chunk (absent for the first chunk of a run)
 * @param cursorAfter  cursor after this chunk; required
 * @param text         the log text; required (may be empty)
 * @param timestamp    when it was read, epoch milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record LogChunk(
        @JsonProperty(required = true) String pipelineFqn,
        @JsonProperty(required = true) String runId,
        String cursorBefore,
        @JsonProperty(required = true) String cursorAfter,
        @JsonProperty(required = true) String text,
        long timestamp) {

    public LogChunk {
        Objects.requireNonNull(pipelineFqn, "LogChunk.pipelineFqn is required");
        Objects.requireNonNull(runId, "LogChunk.runId is required");
        Objects.requireNonNull(cursorAfter, "LogChunk.cursorAfter is required");
        Objects.requireNonNull(text, "LogChunk.text is required");
    }

    /** The Kafka key of this record. */
    public String key() {
        return TopicKeys.pipelineRun(pipelineFqn, runId);
    }
}
