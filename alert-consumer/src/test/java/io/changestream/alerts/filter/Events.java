package io.changestream.alerts.filter;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.serde.Json;
import java.util.List;

/** Builds test events. */
final class Events {

    static final String TABLE_ID = "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e";

    private Events() {
    }

    static JsonNode json(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static ChangeEvent event(String eventType, String entityType, String user, String entityJson,
                             ChangeDescription change) {
        return new ChangeEvent("e-" + eventType + "-" + entityType, eventType, entityType, TABLE_ID, null,
                "svc.db.sales.orders", 0.1, 0.2, user, null, 1_700_000_000_000L, change,
                entityJson == null ? null : json(entityJson), null);
    }

    static ChangeEvent tableUpdate(String user, String... fields) {
        List<FieldChange> updated = java.util.Arrays.stream(fields)
                .map(f -> new FieldChange(f, json("\"old\""), json("\"new\""))).toList();
        return event("entityUpdated", "table", user, """
                {"id":"%s","fullyQualifiedName":"svc.db.sales.orders",
                 "owners":[{"id":"u1","type":"user","name":"alice"},{"id":"t1","type":"team","name":"data-eng"}],
                 "domains":[{"id":"d1","type":"domain","name":"Sales","fullyQualifiedName":"Sales"}]}
                """.formatted(TABLE_ID), new ChangeDescription(List.of(), updated, List.of(), 0.1));
    }

    static ChangeEvent statusChange(String entityType, String field, String statusJson, boolean added) {
        FieldChange change = new FieldChange(field, null, json(statusJson));
        ChangeDescription description = added
                ? new ChangeDescription(List.of(change), List.of(), List.of(), 0.1)
                : new ChangeDescription(List.of(), List.of(change), List.of(), 0.1);
        return event("entityUpdated", entityType, "ingestion-bot", null, description);
    }
}
