package io.changestream.alerts.pipeline;

import io.changestream.runtime.Backoff;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What the {@link AlertProcessor} needs besides its collaborators. Immutable; validated here, naming the setting.
 *
 * @param changesTopic        the {@code changes} topic (full name)
 * @param pipelineStatusTopic the {@code pipeline-status} topic (full name)
 * @param initialBackoff      the runtime's first retry delay, for the "next attempt" the status endpoint shows
 * @param maxBackoff          the runtime's longest retry delay, likewise
 * @param atMostOnceTypes     destination types sent at most once unless a destination's {@code config.delivery}
 *                            says otherwise ({@code delivery.atMostOnceTypes}, default none: every destination is at
 *                            least once)
 * @param releaseTimeout      how long a release waits for a running delivery of the released partition before
 *                            cancelling it ({@code pipeline.releaseTimeout}, default 30 s: one attempt at the
 *                            platform's default timeouts, 10 s connect + 12 s read)
 * @param malformedMaxChars   characters of a malformed record's raw value kept in its dead letter
 *                            ({@code pipeline.malformedMaxChars}, default 65,536)
 */
public record PipelineSettings(String changesTopic, String pipelineStatusTopic, Duration initialBackoff,
                               Duration maxBackoff, Set<SubscriptionType> atMostOnceTypes, Duration releaseTimeout,
                               int malformedMaxChars) {

    public static final Duration DEFAULT_RELEASE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MALFORMED_MAX_CHARS = 65_536;

    public PipelineSettings {
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(pipelineStatusTopic, "pipelineStatusTopic");
        Objects.requireNonNull(initialBackoff, "runtime.initialBackoff");
        Objects.requireNonNull(maxBackoff, "runtime.maxBackoff");
        atMostOnceTypes = Set.copyOf(Objects.requireNonNull(atMostOnceTypes, "delivery.atMostOnceTypes"));
        Objects.requireNonNull(releaseTimeout, "pipeline.releaseTimeout");
        if (releaseTimeout.isNegative() || releaseTimeout.isZero()) {
            throw new IllegalArgumentException("pipeline.releaseTimeout must be positive, was " + releaseTimeout);
        }
        if (malformedMaxChars < 0 || malformedMaxChars > 1_048_576) {
            throw new IllegalArgumentException("pipeline.malformedMaxChars must be in [0, 1048576], was "
                    + malformedMaxChars);
        }
    }

    /** The defaults for the two topics and backoffs. */
    public static PipelineSettings of(String changesTopic, String pipelineStatusTopic, Duration initialBackoff,
                                      Duration maxBackoff) {
        return new PipelineSettings(changesTopic, pipelineStatusTopic, initialBackoff, maxBackoff, Set.of(),
                DEFAULT_RELEASE_TIMEOUT, DEFAULT_MALFORMED_MAX_CHARS);
    }

    /** About when attempt {@code attempt + 1} runs after a retry without Retry-After. */
    Duration backoffAfter(int attempt) {
        return Backoff.doubling(initialBackoff, maxBackoff).after(attempt);
    }
}
