package io.changestream.alerts.filter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.serde.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * One event as the functions see it: the envelope plus its {@code entity}, parsed at most once (the platform writes
 * the entity either as an object or as a JSON-coded string). Confined to the evaluating thread.
 */
final class EventFacts {

    /** The platform's entity type of conversation threads, to which most filters do not apply. */
    static final String THREAD = "THREAD";

    private final ChangeEvent event;
    private final FilterSettings settings;
    private JsonNode entity;
    private boolean entityRead;

    EventFacts(ChangeEvent event, FilterSettings settings) {
        this.event = event;
        this.settings = settings;
    }

    ChangeEvent event() {
        return event;
    }

    FilterSettings settings() {
        return settings;
    }

    boolean isThread() {
        return THREAD.equals(event.entityType());
    }

    /** The entity as a JSON object, or null when the event carries none. */
    JsonNode entity() {
        if (!entityRead) {
            entity = readValue(event.entity(), "entity");
            entityRead = true;
        }
        return entity;
    }

    /** Field changes added and updated (the platform's test-result view), or only updated. */
    List<FieldChange> changes(boolean includeAdded) {
        ChangeDescription description = event.changeDescription();
        List<FieldChange> out = new ArrayList<>(description.fieldsUpdated());
        if (includeAdded) {
            out.addAll(description.fieldsAdded());
        }
        return out;
    }

    /** A JSON value that may be JSON-coded in a string, as a tree; null stays null. */
    static JsonNode readValue(JsonNode value, String what) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return null;
        }
        if (!value.isTextual()) {
            return value;
        }
        String text = value.asText().trim();
        if (!text.startsWith("{") && !text.startsWith("[")) {
            throw new FilterEvaluationException(what + " is a string but not a JSON object or array");
        }
        try {
            return Json.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new FilterEvaluationException(what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Text of a field, or null. */
    static String text(JsonNode node, String field) {
        if (node == null) {
            return null;
        }
        JsonNode value = node.get(field);
        return value == null || value.isNull() || !value.isValueNode() ? null : value.asText();
    }
}
