package io.changestream.alerts.pipeline;

import java.time.Duration;
import java.util.Objects;

/**
 * What the {@link AlertProcessor} needs besides its collaborators.
 *
 * @param changesTopic        the {@code changes} topic (full name)
 * @param pipelineStatusTopic the {@code pipeline-status} topic (full name)
 * @param initialBackoff      the runtime's first retry delay, for the "next attempt" the status endpoint shows
 * @param maxBackoff          the runtime's longest retry delay, likewise
 */
public record PipelineSettings(String changesTopic, String pipelineStatusTopic, Duration initialBackoff,
                               Duration maxBackoff) {

    public PipelineSettings {
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(pipelineStatusTopic, "pipelineStatusTopic");
        Objects.requireNonNull(initialBackoff, "runtime.initialBackoff");
        Objects.requireNonNull(maxBackoff, "runtime.maxBackoff");
    }

    /** About when attempt {@code attempt + 1} runs after a retry without Retry-After. */
    Duration backoffAfter(int attempt) {
        Duration d = initialBackoff.multipliedBy(1L << Math.min(Math.max(attempt - 1, 0), 20));
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }
}
