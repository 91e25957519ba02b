package io.changestream.cdc.transform;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.List;

/**
 * Replaces values of a ChangeEvent's entity at configured JSON pointers, in place, before anything is written or
 * logged. The entity may be an object or a JSON-coded string (the platform writes both). Field changes of
 * {@code changeDescription} whose {@code name} leads to a masked pointer (e.g. {@code connection} or
 * {@code connection.config} for {@code /connection/config/password}) are masked in their old and new values too.
 * Immutable; any thread.
 */
final class JsonMasker {

    private static final String[] CHANGE_LISTS = {"fieldsAdded", "fieldsUpdated", "fieldsDeleted"};

    private final ObjectMapper mapper;
    private final List<JsonPointer> pointers;
    private final TextNode mask;

    JsonMasker(ObjectMapper mapper, List<String> pointers, String maskValue) {
        this.mapper = mapper;
        this.pointers = pointers.stream().map(JsonPointer::compile).toList();
        this.mask = TextNode.valueOf(maskValue);
    }

    boolean isEmpty() {
        return pointers.isEmpty();
    }

    /** Masks the entity and the matching field changes of one ChangeEvent JSON object. */
    void maskEvent(ObjectNode event) {
        if (pointers.isEmpty()) {
            return;
        }
        JsonNode entity = event.get("entity");
        if (entity != null) {
            event.set("entity", maskValue(entity, pointers));
        }
        JsonNode description = event.get("changeDescription");
        if (description instanceof ObjectNode) {
            for (String list : CHANGE_LISTS) {
                if (description.get(list) instanceof ArrayNode changes) {
                    changes.forEach(this::maskFieldChange);
                }
            }
        }
    }

    private void maskFieldChange(JsonNode change) {
        if (!(change instanceof ObjectNode fieldChange) || !change.path("name").isTextual()) {
            return;
        }
        List<String> nameSegments = Arrays.asList(change.get("name").asText().split("\\."));
        List<JsonPointer> remainders = pointers.stream()
                .map(p -> remainder(p, nameSegments))
                .filter(r -> r != null)
                .toList();
        if (remainders.isEmpty()) {
            return;
        }
        for (String side : new String[] {"oldValue", "newValue"}) {
            JsonNode value = fieldChange.get(side);
            if (value != null && !value.isNull()) {
                fieldChange.set(side, maskValue(value, remainders));
            }
        }
    }

    /** The rest of {@code pointer} after the field path {@code segments}, or null when it does not start with it. */
    private static JsonPointer remainder(JsonPointer pointer, List<String> segments) {
        JsonPointer rest = pointer;
        for (String segment : segments) {
            if (rest.matches() || !segment.equals(rest.getMatchingProperty())) {
                return null;
            }
            rest = rest.tail();
        }
        return rest;
    }

    /** Masks a value that is a JSON tree or a JSON-coded string; returns the (possibly replaced) value. */
    private JsonNode maskValue(JsonNode value, List<JsonPointer> at) {
        if (value.isTextual()) {
            JsonNode parsed;
            try {
                parsed = mapper.readTree(value.asText());
            } catch (JsonProcessingException e) {
                parsed = null;
            }
            if (parsed == null || !parsed.isContainerNode()) {
                return at.stream().anyMatch(JsonPointer::matches) ? mask : value;
            }
            JsonNode masked = maskValue(parsed, at);
            try {
                return TextNode.valueOf(mapper.writeValueAsString(masked));
            } catch (JsonProcessingException e) {
                return mask;
            }
        }
        for (JsonPointer pointer : at) {
            if (pointer.matches()) {
                return mask;
            }
            JsonNode parent = value.at(pointer.head());
            String last = pointer.last().getMatchingProperty();
            if (parent instanceof ObjectNode object && object.has(last)) {
                object.set(last, mask);
            } else if (parent instanceof ArrayNode array && pointer.last().mayMatchElement()) {
                int index = pointer.last().getMatchingIndex();
                if (index >= 0 && index < array.size()) {
                    array.set(index, mask);
                }
            }
        }
        return value;
    }
}
