package io.changestream.alerts.subscription;

import io.changestream.alerts.filter.ActiveSubscription;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.startpoint.StartingPoint;
import io.changestream.alerts.startpoint.StartingPointException;
import io.changestream.alerts.startpoint.StartingPoints;
import io.changestream.topics.model.EventSubscription;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The subscription operations of the admin API, with the platform's semantics: POST creates, PUT creates or
 * updates by name, GET/DELETE by id or by name. A created subscription gets its {@link StartingPoint} (the source
 * topics' log end, or the request's {@code startingOffset}/{@code startingTimestamp}) stored with it; an update keeps
 * the stored one. Any thread (the REST threads).
 */
public final class SubscriptionService {

    /** The result of a create-or-update. */
    public record Saved(EventSubscription subscription, boolean created) {
    }

    /**
     * One page of the list, by name.
     *
     * @param data  the subscriptions of the page
     * @param total how many there are in all
     * @param after the cursor of the next page ({@code ?after=}), or null on the last page
     */
    public record Page(List<EventSubscription> data, int total, String after) {
    }

    private final SubscriptionFactory factory;
    private final SubscriptionStore store;
    private final SubscriptionQuotas quotas;
    private final StartingPoints startingPoints;

    /**
     * @param startingPoints resolves a new subscription's starting point, or null to store none (it then receives
     *                       every event it reads, as before starting points)
     */
    public SubscriptionService(SubscriptionFactory factory, SubscriptionStore store, SubscriptionQuotas quotas,
                               StartingPoints startingPoints) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.store = Objects.requireNonNull(store, "store");
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.startingPoints = startingPoints;
    }

    /** Without starting points. */
    public SubscriptionService(SubscriptionFactory factory, SubscriptionStore store, SubscriptionQuotas quotas) {
        this(factory, store, quotas, null);
    }

    /** With the default quotas. */
    public SubscriptionService(SubscriptionFactory factory, SubscriptionStore store) {
        this(factory, store, SubscriptionQuotas.DEFAULTS);
    }

    /**
     * POST: creates; 409 when the name exists, 400 when the service holds {@code quota.subscriptions} already (an
     * estimate across instances: two creates at the same moment on two instances may both pass).
     */
    public EventSubscription create(JsonNode request, String user) {
        if (store.size() >= quotas.maxSubscriptions()) {
            throw SubscriptionException.invalid("body", "the service holds " + store.size() + " subscriptions, "
                    + "the most quota.subscriptions allows (" + quotas.maxSubscriptions() + ")");
        }
        EventSubscription built = factory.fromRequest(request, null, user, store::destinationOwner);
        StartingPoint point;
        try {
            point = startingPoints == null ? null : startingPoints.resolve(request);
        } catch (StartingPointException e) {
            throw SubscriptionException.invalid(e.field(), e.getMessage());
        } catch (IllegalStateException e) {
            throw new SubscriptionException(503, "the starting point could not be resolved: " + e.getMessage(), e);
        }
        return store.create(withStartingPoint(built, point));
    }

    /** The subscription with the request's starting fields replaced by {@code point} (none when null). */
    private static EventSubscription withStartingPoint(EventSubscription s, StartingPoint point) {
        Map<String, JsonNode> extra = new LinkedHashMap<>(s.additionalProperties());
        StartingPoints.requestFields().forEach(extra::remove);
        if (point != null) {
            extra.put(StartingPoint.FIELD, point.toJson());
        }
        return new EventSubscription(s.id(), s.name(), s.fullyQualifiedName(), s.displayName(), s.description(),
                s.alertType(), s.trigger(), s.enabled(), s.filteringRules(), s.input(), s.destinations(),
                s.batchSize(), s.retries(), s.pollInterval(), s.provider(), s.owners(), s.domains(), s.version(),
                s.updatedAt(), s.updatedBy(), extra);
    }

    /** An update keeps the stored starting point; the request's starting fields apply only at creation. */
    private static EventSubscription keepingStartingPoint(EventSubscription updated, EventSubscription existing) {
        return withStartingPoint(updated, StartingPoint.of(existing));
    }

    /** PUT: updates the subscription with the request's name, or creates it. */
    public Saved createOrUpdate(JsonNode request, String user) {
        String name = request != null && request.path("name").isTextual() ? request.get("name").asText() : null;
        EventSubscription existing = store.byName(name).map(ActiveSubscription::subscription).orElse(null);
        if (existing == null) {
            return new Saved(create(request, user), true);
        }
        return new Saved(store.update(keepingStartingPoint(factory.fromRequest(request, existing, user,
                store::destinationOwner), existing)), false);
    }

    /** PUT by id: updates that subscription (its name may change); 404 when unknown. */
    public EventSubscription update(String id, JsonNode request, String user) {
        EventSubscription existing = get(id);
        return store.update(keepingStartingPoint(factory.fromRequest(request, existing, user,
                store::destinationOwner), existing));
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

    /**
     * GET a page: at most {@code limit} subscriptions by name, after the one the cursor names.
     *
     * @param limit {@code limit}, null for {@code quota.listLimit}
     * @param after {@code after}, a cursor of an earlier page, or null for the first page
     * @throws SubscriptionException.Invalid naming {@code limit} or {@code after}
     */
    public Page list(Integer limit, String after) {
        int size = limit == null ? quotas.maxListLimit() : limit;
        if (size < 1 || size > quotas.maxListLimit()) {
            throw SubscriptionException.invalid("limit", "must be in [1, " + quotas.maxListLimit()
                    + "] (quota.listLimit), was " + size);
        }
        String afterName = after == null ? null : decodeCursor(after);
        List<EventSubscription> all = list();
        List<EventSubscription> rest = afterName == null ? all
                : all.stream().filter(s -> s.name().compareTo(afterName) > 0).toList();
        List<EventSubscription> page = rest.subList(0, Math.min(size, rest.size()));
        String next = rest.size() > size ? Base64.getUrlEncoder().withoutPadding().encodeToString(
                page.get(page.size() - 1).name().getBytes(StandardCharsets.UTF_8)) : null;
        return new Page(page, all.size(), next);
    }

    private static String decodeCursor(String cursor) {
        try {
            return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw SubscriptionException.invalid("after", "is not a cursor of this list (use paging.after)");
        }
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
