package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The value on the compacted topic {@code subscriptions} (key = {@code id}; a tombstone deletes): an alert as the
 * platform stores it ({@code events/eventSubscription.json}).
 *
 * <p>The platform's defaults apply when a field is absent: {@code alertType} Notification, {@code trigger} RealTime,
 * {@code enabled} true, {@code batchSize} 100, {@code retries} 3, {@code pollInterval} 10 s. Platform fields this
 * record does not model ({@code href}, {@code changeDescription}, {@code notificationTemplate}, {@code config}…) are
 * kept in {@link #additionalProperties()} and written back unchanged, so the platform's own JSON round-trips.
 *
 * @param id                   subscription id (UUID string); required
 * @param name                 unique name; required
 * @param fullyQualifiedName   FQN (equal to the name for subscriptions)
 * @param displayName          display name
 * @param description          markdown description
 * @param alertType            kind of alert
 * @param trigger              when it fires
 * @param enabled              whether the subscription delivers at all
 * @param filteringRules       compiled filter rules
 * @param input                the UI's filter input
 * @param destinations         where to deliver; never null
 * @param batchSize            max events per batch
 * @param retries              delivery retries before dead-lettering
 * @param pollInterval         the platform's poll interval, seconds (informational here)
 * @param provider             {@code system} or {@code user}
 * @param owners               entity references, kept verbatim
 * @param domains              entity references, kept verbatim
 * @param version              entity version
 * @param updatedAt            last update, epoch milliseconds
 * @param updatedBy            who updated it last
 * @param additionalProperties platform fields not modelled here
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record EventSubscription(
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) String name,
        String fullyQualifiedName,
        String displayName,
        String description,
        AlertType alertType,
        TriggerConfig trigger,
        Boolean enabled,
        FilteringRules filteringRules,
        AlertFilteringInput input,
        List<SubscriptionDestination> destinations,
        Integer batchSize,
        Integer retries,
        Integer pollInterval,
        String provider,
        JsonNode owners,
        JsonNode domains,
        Double version,
        Long updatedAt,
        String updatedBy,
        @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> additionalProperties) {

    /** Platform default of {@code batchSize}. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** Platform default of {@code retries}. */
    public static final int DEFAULT_RETRIES = 3;
    /** Platform default of {@code pollInterval}, seconds. */
    public static final int DEFAULT_POLL_INTERVAL_SECONDS = 10;

    public EventSubscription {
        Objects.requireNonNull(id, "EventSubscription.id is required");
        Objects.requireNonNull(name, "EventSubscription.name is required");
        alertType = alertType == null ? AlertType.NOTIFICATION : alertType;
        trigger = trigger == null ? TriggerConfig.REAL_TIME : trigger;
        enabled = enabled == null ? Boolean.TRUE : enabled;
        destinations = RecordValues.copy(destinations);
        batchSize = RecordValues.atLeast(batchSize, DEFAULT_BATCH_SIZE, 1, "EventSubscription.batchSize");
        retries = RecordValues.atLeast(retries, DEFAULT_RETRIES, 0, "EventSubscription.retries");
        pollInterval = RecordValues.atLeast(pollInterval, DEFAULT_POLL_INTERVAL_SECONDS, 1,
                "EventSubscription.pollInterval");
        additionalProperties = RecordValues.copy(additionalProperties);
    }

    /** A builder for tests and tools; the record's defaults apply to fields left unset. */
    public static Builder builder(String id, String name) {
        return new Builder(id, name);
    }

    /** The enabled destinations of an enabled subscription (empty when the subscription is disabled). */
    public List<SubscriptionDestination> activeDestinations() {
        if (!enabled) {
            return List.of();
        }
        return destinations.stream().filter(SubscriptionDestination::enabled).toList();
    }

    /** Builds an {@link EventSubscription}; not thread-safe. */
    public static final class Builder {
        private final String id;
        private final String name;
        private String displayName;
        private String description;
        private AlertType alertType;
        private TriggerConfig trigger;
        private Boolean enabled;
        private FilteringRules filteringRules;
        private AlertFilteringInput input;
        private List<SubscriptionDestination> destinations = List.of();
        private Integer batchSize;
        private Integer retries;

        private Builder(String id, String name) {
            this.id = id;
            this.name = name;
        }

        public Builder displayName(String value) {
            this.displayName = value;
            return this;
        }

        public Builder description(String value) {
            this.description = value;
            return this;
        }

        public Builder alertType(AlertType value) {
            this.alertType = value;
            return this;
        }

        public Builder trigger(TriggerConfig value) {
            this.trigger = value;
            return this;
        }

        public Builder enabled(boolean value) {
            this.enabled = value;
            return this;
        }

        public Builder filteringRules(FilteringRules value) {
            this.filteringRules = value;
            return this;
        }

        public Builder input(AlertFilteringInput value) {
            this.input = value;
            return this;
        }

        public Builder destinations(List<SubscriptionDestination> value) {
            this.destinations = value;
            return this;
        }

        public Builder batchSize(int value) {
            this.batchSize = value;
            return this;
        }

        public Builder retries(int value) {
            this.retries = value;
            return this;
        }

        public EventSubscription build() {
            return new EventSubscription(id, name, name, displayName, description, alertType, trigger, enabled,
                    filteringRules, input, destinations, batchSize, retries, null, null, null, null, null, null,
                    null, null);
        }
    }
}
