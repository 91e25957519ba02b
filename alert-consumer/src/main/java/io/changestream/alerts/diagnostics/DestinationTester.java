package io.changestream.alerts.diagnostics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.Redaction;
import io.changestream.alerts.destination.Secrets;
import io.changestream.alerts.subscription.SubscriptionException;
import io.changestream.alerts.subscription.SubscriptionFactory;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;

/**
 * The platform's test-destination call: each destination of the request is validated as a subscription's would be
 * (a 400 naming {@code destinations[i]…}), then sent one test event through the real delivery path — the registry's
 * destination for its type, with its format, signing, SSRF guard, rate limit and HTTP client — and never through
 * the processor, so nothing reaches the ledger, the DLQ or the retry path. Answers each destination (secrets masked)
 * with its {@code statusDetails}: {@code status} Success or Failed, {@code reason}, {@code timestamp}. Any thread.
 */
public final class DestinationTester {

    /** The name of the stand-in subscription the test event is sent for. */
    public static final String TEST_SUBSCRIPTION = "testDestination";

    private final SubscriptionFactory factory;
    private final DestinationRegistry registry;
    private final Clock clock;

    public DestinationTester(SubscriptionFactory factory, DestinationRegistry registry, Clock clock) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Sends the test message to every destination of {@code request} ({@code {"destinations": [...]}}).
     *
     * @throws SubscriptionException.Invalid naming the field
     */
    public ArrayNode test(JsonNode request, String user) {
        if (request == null || !request.isObject()) {
            throw SubscriptionException.invalid("body", "must be a JSON object with destinations");
        }
        JsonNode destinations = request.get("destinations");
        if (destinations == null || !destinations.isArray() || destinations.isEmpty()) {
            throw SubscriptionException.invalid("destinations", "at least one destination must be provided to send "
                    + "a test message");
        }
        ObjectNode asSubscription = JsonNodeFactory.instance.objectNode().put("name", TEST_SUBSCRIPTION);
        asSubscription.putArray("resources").add("all");
        asSubscription.set("destinations", destinations);
        EventSubscription subscription = factory.fromRequest(asSubscription, null, user);
        ChangeEvent event = new ChangeEvent(UUID.randomUUID().toString(), ChangeEvent.ENTITY_UPDATED, "eventSubscription",
                subscription.id(), null, TEST_SUBSCRIPTION, null, null, user, null, clock.millis(), null, null, null);
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (SubscriptionDestination destination : subscription.destinations()) {
            DeliveryResult result;
            try {
                result = registry.deliver(DeliveryRequest.of(subscription, destination, event, 1));
            } catch (RuntimeException e) {
                result = DeliveryResult.permanent(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            ObjectNode view = io.changestream.topics.serde.Json.mapper().valueToTree(destination);
            if (destination.config() != null) {
                view.set("config", Secrets.masked(destination.type(), destination.config()));
            }
            ObjectNode status = view.putObject("statusDetails")
                    .put("status", result.isDelivered() ? "Success" : "Failed")
                    .put("timestamp", clock.millis());
            if (!result.isDelivered()) {
                status.put("reason", Redaction.reason(result.reason()));
            }
            out.add(view);
        }
        return out;
    }
}
