package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What changed in an entity update: the platform's {@code changeDescription}.
 *
 * <p>Lists are never null after construction (absent lists become empty lists) and are unmodifiable.
 *
 * @param fieldsAdded     fields that got a value
 * @param fieldsUpdated   fields whose value changed
 * @param fieldsDeleted   fields whose value was removed
 * @param previousVersion entity version before this change
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ChangeDescription(
        List<FieldChange> fieldsAdded,
        List<FieldChange> fieldsUpdated,
        List<FieldChange> fieldsDeleted,
        Double previousVersion) {

    public ChangeDescription {
        fieldsAdded = Lists.copy(fieldsAdded);
        fieldsUpdated = Lists.copy(fieldsUpdated);
        fieldsDeleted = Lists.copy(fieldsDeleted);
    }

    /** Every field change of this description, added first, then updated, then deleted. */
    public List<FieldChange> allChanges() {
        var all = new java.util.ArrayList<FieldChange>(fieldsAdded.size() + fieldsUpdated.size() + fieldsDeleted.size());
        all.addAll(fieldsAdded);
        all.addAll(fieldsUpdated);
        all.addAll(fieldsDeleted);
        return List.copyOf(all);
    }
}
