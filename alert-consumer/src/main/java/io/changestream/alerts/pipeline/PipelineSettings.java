package io.changestream.alerts.pipeline;

import io.changestream.alerts.platform.PlatformNames;
import io.changestream.runtime.Backoff;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the {@link AlertProcessor} needs besides its collaborators. Immutable; validated here, naming the setting.
 *
 * @param changesTopic        the {@code changes} topic (full name)
 * @param pipelineStatusTopic the {@code pipeline-status} topic (full name)
 * @param initialBackoff      the runtime's first retry delay, for the "next attempt" the status endpoint shows
 * @param maxBackoff          the runtime's longest retry delay, likewise
 * @param atMostOnceTypes     {@link #AT_MOST_ONCE_TYPES}, unless a destination's {@code config.delivery} says
 *                            otherwise (default none: every destination is at least once)
 * @param releaseTimeout      {@link #RELEASE_TIMEOUT}, then the delivery is cancelled (30 s: one attempt at the
 *                            platform's default timeouts, 10 s connect + 12 s read)
 * @param malformedMaxChars   {@link #MALFORMED_MAX_CHARS}
 */
public record PipelineSettings(String changesTopic, String pipelineStatusTopic, Duration initialBackoff,
                               Duration maxBackoff, Set<SubscriptionType> atMostOnceTypes, Duration releaseTimeout,
                               int malformedMaxChars) {

    public static final Setting<Set<SubscriptionType>> AT_MOST_ONCE_TYPES = PlatformNames.DESTINATION_TYPES
            .setting("delivery.atMostOnceTypes", Set.of())
            .doc("destination types sent at most once (e.g. Email,Slack)");
    public static final Setting<Duration> RELEASE_TIMEOUT = Setting.duration("pipeline.releaseTimeout")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("wait for a released partition's running delivery");
    public static final Setting<Integer> MALFORMED_MAX_CHARS = Setting.integer("pipeline.malformedMaxChars")
            .defaultsTo(65_536).between(0, 1_048_576).doc("raw value kept in a malformed record's dead letter");
    /** The alert processor's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(AT_MOST_ONCE_TYPES, RELEASE_TIMEOUT, MALFORMED_MAX_CHARS);

    public PipelineSettings {
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(pipelineStatusTopic, "pipelineStatusTopic");
        Objects.requireNonNull(initialBackoff, "runtime.initialBackoff");
        Objects.requireNonNull(maxBackoff, "runtime.maxBackoff");
        atMostOnceTypes = Set.copyOf(AT_MOST_ONCE_TYPES.check(atMostOnceTypes));
        RELEASE_TIMEOUT.check(releaseTimeout);
        MALFORMED_MAX_CHARS.check(malformedMaxChars);
    }

    /** The defaults for the two topics and backoffs. */
    public static PipelineSettings of(String changesTopic, String pipelineStatusTopic, Duration initialBackoff,
                                      Duration maxBackoff) {
        return from(SettingsReader.of(java.util.Map.of()), changesTopic, pipelineStatusTopic, initialBackoff,
                maxBackoff);
    }

    /** The processor's settings {@code settings} give, for the two topics and the runtime's backoffs. */
    public static PipelineSettings from(SettingsReader settings, String changesTopic, String pipelineStatusTopic,
                                        Duration initialBackoff, Duration maxBackoff) {
        return new PipelineSettings(changesTopic, pipelineStatusTopic, initialBackoff, maxBackoff,
                settings.get(AT_MOST_ONCE_TYPES), settings.get(RELEASE_TIMEOUT), settings.get(MALFORMED_MAX_CHARS));
    }

    /** About when attempt {@code attempt + 1} runs after a retry without Retry-After. */
    Duration backoffAfter(int attempt) {
        return Backoff.doubling(initialBackoff, maxBackoff).after(attempt);
    }
}
