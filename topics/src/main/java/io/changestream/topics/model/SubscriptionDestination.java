package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;

/**
 * One destination of a subscription (the platform's {@code destination}). Defaults of the platform apply when a
 * field is absent: {@code timeout} 10 s, {@code readTimeout} 12 s, {@code enabled} true. Fields this record does not
 * model (e.g. {@code notifyDownstream}) are kept in {@link #additionalProperties()} and written back unchanged.
 *
 * @param id                   destination id (UUID string)
 * @param category             who receives it; required
 * @param type                 how it is delivered; required
 * @param timeout              connect timeout in seconds
 * @param readTimeout          read timeout in seconds
 * @param enabled              whether this destination is active
 * @param config               type-specific config, e.g. a webhook {@code {endpoint, secretKey, headers…}}
 * @param statusDetails        the platform's last delivery status, kept verbatim
 * @param additionalProperties platform fields not modelled here
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SubscriptionDestination(
        String id,
        SubscriptionCategory category,
        SubscriptionType type,
        Integer timeout,
        Integer readTimeout,
        Boolean enabled,
        JsonNode config,
        JsonNode statusDetails,
        @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> additionalProperties) {

    /** Platform default connect timeout, seconds. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 10;
    /** Platform default read timeout, seconds. */
    public static final int DEFAULT_READ_TIMEOUT_SECONDS = 12;

    public SubscriptionDestination {
        Objects.requireNonNull(category, "SubscriptionDestination.category is required");
        Objects.requireNonNull(type, "SubscriptionDestination.type is required");
        timeout = RecordValues.atLeast(timeout, DEFAULT_TIMEOUT_SECONDS, 1, "SubscriptionDestination.timeout");
        readTimeout = RecordValues.atLeast(readTimeout, DEFAULT_READ_TIMEOUT_SECONDS, 1,
                "SubscriptionDestination.readTimeout");
        enabled = enabled == null ? Boolean.TRUE : enabled;
        additionalProperties = RecordValues.copy(additionalProperties);
    }

    /** A destination with the platform's defaults and no extra fields. */
    public SubscriptionDestination(String id, SubscriptionCategory category, SubscriptionType type, JsonNode config) {
        this(id, category, type, null, null, null, config, null, null);
    }
}
