package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The value on {@code alert-dlq} (key = {@link #key()} = {@code subscriptionId/eventId}): an event that could not be
 * delivered to a subscription, with why. Mirrors the platform's {@code FailedEvent}.
 *
 * @param subscriptionId the failing subscription; required
 * @param changeEvent    the event; required
 * @param reason         why it failed (exception message, HTTP status); required
 * @param source         which side failed; required
 * @param retriesLeft    retries left when it was dead-lettered (0 when exhausted)
 * @param attempts       attempts made
 * @param timestamp      when it was dead-lettered, epoch milliseconds
 * @param destinationId  the failing destination, absent for PUBLISHER failures
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FailedEvent(
        @JsonProperty(required = true) String subscriptionId,
        @JsonProperty(required = true) ChangeEvent changeEvent,
        @JsonProperty(required = true) String reason,
        @JsonProperty(required = true) FailureSource source,
        int retriesLeft,
        int attempts,
        @JsonProperty(required = true) long timestamp,
        String destinationId) {

    public FailedEvent {
        Objects.requireNonNull(subscriptionId, "FailedEvent.subscriptionId is required");
        Objects.requireNonNull(changeEvent, "FailedEvent.changeEvent is required");
        Objects.requireNonNull(reason, "FailedEvent.reason is required");
        Objects.requireNonNull(source, "FailedEvent.source is required");
        if (retriesLeft < 0 || attempts < 0) {
            throw new IllegalArgumentException("FailedEvent.retriesLeft and attempts must be >= 0, were "
                    + retriesLeft + " and " + attempts);
        }
    }

    /** The Kafka key of this record. */
    public String key() {
        return TopicKeys.dlq(subscriptionId, changeEvent.id());
    }
}
