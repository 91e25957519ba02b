package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One changed field of an entity, as the platform records it in a {@link ChangeDescription}.
 *
 * <p>The platform stores old and new values either as JSON-encoded strings (e.g. a tag list serialized to a string)
 * or as plain JSON values; both are kept verbatim as {@link JsonNode}.
 *
 * @param name     the field name, possibly nested ({@code columns.customer_id.description}); required
 * @param oldValue the value before the change, absent for added fields
 * @param newValue the value after the change, absent for deleted fields
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FieldChange(
        @JsonProperty(required = true) String name,
        JsonNode oldValue,
        JsonNode newValue) {

    public FieldChange {
        Objects.requireNonNull(name, "FieldChange.name is required");
    }
}
