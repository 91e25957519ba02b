package io.changestream.alerts.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.topics.serde.Json;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;

/** The platform's CreateEventSubscription requests, as its UI and SDK send them. */
final class Requests {

    private Requests() {
    }

    static JsonNode json(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static String create(String name, String endpoint) {
        return """
                {
                  "name": "%s",
                  "displayName": "Table changes",
                  "description": "Tell the data team about table changes",
                  "alertType": "Notification",
                  "trigger": {"triggerType": "RealTime"},
                  "resources": ["table"],
                  "input": {
                    "filters": [
                      {"name": "filterByEventType", "effect": "include",
                       "arguments": [{"name": "eventTypeList", "input": ["entityCreated", "entityUpdated"]}]},
                      {"name": "filterByUpdaterIsBot", "effect": "exclude", "arguments": []}
                    ],
                    "actions": []
                  },
                  "destinations": [
                    {"category": "External", "type": "Webhook", "timeout": 10, "readTimeout": 12,
                     "config": {"endpoint": "%s", "secretKey": "top-secret-key", "headers": {"X-Team": "data"}}}
                  ],
                  "provider": "user",
                  "pollInterval": 30,
                  "className": "org.openmetadata.service.apps.bundles.changeEvent.AlertPublisher",
                  "domains": ["Sales"]
                }
                """.formatted(name, endpoint);
    }

    static SubscriptionFactory factory(Clock clock) {
        return new SubscriptionFactory(new DestinationRegistry(DestinationSettings.DEFAULTS, clock,
                new SimpleMeterRegistry(), null), FilterSettings.DEFAULTS, clock);
    }
}
