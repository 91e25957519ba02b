package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.util.List;

/** Test data of the destination tests. */
public final class Fixtures {

    public static final String SUBSCRIPTION_ID = "0b7f8d3e-1c2a-4e5f-8a9b-0c1d2e3f4a5b";

    private Fixtures() {
    }

    public static JsonNode json(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static ChangeEvent event() {
        return new ChangeEvent("9a1e7c44-5d2b-4b8f-a0c3-6e7f8a9b0c1d", "entityUpdated", "table",
                "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e", null, "svc.db.sales.orders", 0.1, 0.2, "alice", null,
                1_700_000_000_000L, new ChangeDescription(List.of(new FieldChange("tags", null, json("\"PII\""))),
                List.of(new FieldChange("description", json("\"old text\""), json("\"new text\""))), List.of(), 0.1),
                json("{\"id\":\"6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e\"}"), null);
    }

    public static EventSubscription subscription(SubscriptionDestination... destinations) {
        return EventSubscription.builder(SUBSCRIPTION_ID, "orders-alerts").destinations(List.of(destinations))
                .build();
    }

    public static SubscriptionDestination destination(String id, SubscriptionType type, String configJson) {
        return new SubscriptionDestination(id, SubscriptionCategory.EXTERNAL, type, 1, 2, true,
                json(configJson), null, null);
    }
}
