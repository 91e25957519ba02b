package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What changed in an entity update: the platform's {@code changeDescription}.
 *
 * <p>Lists are never null after construction (absent lists become empty lists) and are unmodifiable.
 *
 * @param fieldsAdded     fields that got a value
 * @param fieldsUpdated   fields whose value changed
 * @param fieldsDeleted   fields whose value was removed
 * @param previousVersion      entity version before this change
 * @param additionalProperties platform fields not modelled here (e.g. {@code changeSummary}), kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChangeDescription(
        List<FieldChange> fieldsAdded,
        List<FieldChange> fieldsUpdated,
        List<FieldChange> fieldsDeleted,
        Double previousVersion,
        @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> additionalProperties) {

    public ChangeDescription {
        fieldsAdded = RecordValues.copy(fieldsAdded);
        fieldsUpdated = RecordValues.copy(fieldsUpdated);
        fieldsDeleted = RecordValues.copy(fieldsDeleted);
        additionalProperties = RecordValues.copy(additionalProperties);
    }

    /** A description without further platform fields. */
    public ChangeDescription(List<FieldChange> fieldsAdded, List<FieldChange> fieldsUpdated,
                             List<FieldChange> fieldsDeleted, Double previousVersion) {
        this(fieldsAdded, fieldsUpdated, fieldsDeleted, previousVersion, null);
    }

    /** Every field change of this description, added first, then updated, then deleted. */
    public List<FieldChange> allChanges() {
        var all = new ArrayList<FieldChange>(fieldsAdded.size() + fieldsUpdated.size() + fieldsDeleted.size());
        all.addAll(fieldsAdded);
        all.addAll(fieldsUpdated);
        all.addAll(fieldsDeleted);
        return List.copyOf(all);
    }
}
