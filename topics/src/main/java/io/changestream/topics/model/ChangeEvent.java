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
 * The envelope on topic {@code changes} (key = {@code entityId}): the platform's ChangeEvent JSON, field for field,
 * plus {@link #source()} saying where it was captured.
 *
 * <p>Field names and meaning follow the platform's {@code type/changeEvent.json}. {@code eventType} stays a string
 * because the platform has many values (entityCreated, entityUpdated, entitySoftDeleted, entityDeleted,
 * entityRestored, entityFieldsChanged, thread/task/post and lineage variants) and adds more over time; well-known
 * ones are constants here. {@code entity} is kept verbatim: the platform writes it either as an object or as a
 * JSON-coded string.
 *
 * @param id                       event id (UUID string); required, the deduplication key
 * @param eventType                e.g. {@value #ENTITY_UPDATED}; required
 * @param entityType               e.g. {@code table}; required
 * @param entityId                 UUID of the changed entity; required, the Kafka key
 * @param domains                  ids of the domains of the entity (may be absent)
 * @param entityFullyQualifiedName FQN of the entity
 * @param previousVersion          entity version before the change
 * @param currentVersion           entity version after the change
 * @param userName                 the user whose action caused the change
 * @param impersonatedBy           the bot or user that acted on behalf of {@code userName}
 * @param timestamp                when the change was made, epoch milliseconds; required
 * @param changeDescription        what changed (entityUpdated); absent for creates and deletes
 * @param entity                   the entity JSON (object or JSON-coded string), may be absent
 * @param source                   capture position (changestream's addition), may be absent
 * @param additionalProperties     platform fields not modelled here (e.g. {@code incrementalChangeDescription}),
 *                                 kept and written back unchanged; never null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChangeEvent(
        @JsonProperty(required = true) String id,
        @JsonProperty(required = true) String eventType,
        @JsonProperty(required = true) String entityType,
        @JsonProperty(required = true) String entityId,
        List<String> domains,
        String entityFullyQualifiedName,
        Double previousVersion,
        Double currentVersion,
        String userName,
        String impersonatedBy,
        @JsonProperty(required = true) long timestamp,
        ChangeDescription changeDescription,
        JsonNode entity,
        SourcePosition source,
        @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> additionalProperties) {

    public static final String ENTITY_CREATED = "entityCreated";
    public static final String ENTITY_UPDATED = "entityUpdated";
    public static final String ENTITY_FIELDS_CHANGED = "entityFieldsChanged";
    public static final String ENTITY_SOFT_DELETED = "entitySoftDeleted";
    public static final String ENTITY_DELETED = "entityDeleted";
    public static final String ENTITY_RESTORED = "entityRestored";
    public static final String ENTITY_NO_CHANGE = "entityNoChange";

    public ChangeEvent {
        requireText(id, "id");
        requireText(eventType, "eventType");
        requireText(entityType, "entityType");
        requireText(entityId, "entityId");
        domains = RecordValues.copyOrNull(domains);
        additionalProperties = RecordValues.copy(additionalProperties);
    }

    /** An event without further platform fields (the common constructor). */
    public ChangeEvent(String id, String eventType, String entityType, String entityId, List<String> domains,
                       String entityFullyQualifiedName, Double previousVersion, Double currentVersion,
                       String userName, String impersonatedBy, long timestamp, ChangeDescription changeDescription,
                       JsonNode entity, SourcePosition source) {
        this(id, eventType, entityType, entityId, domains, entityFullyQualifiedName, previousVersion, currentVersion,
                userName, impersonatedBy, timestamp, changeDescription, entity, source, null);
    }

    /** This event with its capture position set (used by the cdc-connector). */
    public ChangeEvent withSource(SourcePosition position) {
        return new ChangeEvent(id, eventType, entityType, entityId, domains, entityFullyQualifiedName,
                previousVersion, currentVersion, userName, impersonatedBy, timestamp, changeDescription, entity,
                position, additionalProperties);
    }

    private static void requireText(String value, String field) {
        Objects.requireNonNull(value, () -> "ChangeEvent." + field + " is required");
        if (value.isBlank()) {
            throw new IllegalArgumentException("ChangeEvent." + field + " must not be blank");
        }
    }
}
