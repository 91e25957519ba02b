package io.changestream.alerts.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.EventSubscription;
import java.util.List;
import java.util.Objects;

/**
 * The subscription operations of the admin API, with the platform's semantics: POST creates, PUT creates or
 * updates by name, GET/DELETE by id or by name. Any thread (the REST threads).
 */
public final class SubscriptionService {

    /** The result of a create-or-update. */
    public record Saved(EventSubscription subscription, boolean created) {
    }

    private final SubscriptionFactory factory;
    private final SubscriptionStore store;

    public SubscriptionService(SubscriptionFactory factory, SubscriptionStore store) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.store = Objects.requireNonNull(store, "store");
    }

    /** POST: creates; 409 when the name exists. */
    public EventSubscription create(JsonNode request, String user) {
        return store.create(factory.fromRequest(request, null, user));
    }

    /** PUT: updates the subscription with the request's name, or creates it. */
    public Saved createOrUpdate(JsonNode request, String user) {
        String name = request != null && request.path("name").isTextual() ? request.get("name").asText() : null;
        EventSubscription existing = store.byName(name).map(ActiveSubscription::subscription).orElse(null);
        if (existing == null) {
            return new Saved(create(request, user), true);
        }
        return new Saved(store.update(factory.fromRequest(request, existing, user)), false);
    }

    /** PUT by id: updates that subscription (its name may change); 404 when unknown. */
    public EventSubscription update(String id, JsonNode request, String user) {
        EventSubscription existing = get(id);
        return store.update(factory.fromRequest(request, existing, user));
    }

    /** GET by id; 404 when unknown. */
    public EventSubscription get(String id) {
        return store.get(id).map(ActiveSubscription::subscription)
                .orElseThrow(() -> SubscriptionException.notFound(id));
    }

    /** GET by name; 404 when unknown. */
    public EventSubscription getByName(String name) {
        return store.byName(name).map(ActiveSubscription::subscription)
                .orElseThrow(() -> SubscriptionException.notFound("named " + name));
    }

    /** GET all, by name. */
    public List<EventSubscription> list() {
        return store.list().stream().map(ActiveSubscription::subscription).toList();
    }

    /** DELETE by id; returns what was deleted. */
    public EventSubscription delete(String id) {
        return store.delete(id);
    }

    /** DELETE by name; returns what was deleted. */
    public EventSubscription deleteByName(String name) {
        return store.delete(getByName(name).id());
    }
}
