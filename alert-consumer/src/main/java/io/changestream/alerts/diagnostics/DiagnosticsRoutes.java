package io.changestream.alerts.diagnostics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.Redaction;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.startpoint.StartingPoint;
import io.changestream.alerts.subscription.DeliveryStatuses;
import io.changestream.alerts.subscription.DestinationStatus;
import io.changestream.alerts.subscription.SubscriptionException;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.alerts.subscription.SubscriptionStore;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * The platform's status routes of a subscription, on its paths under {@value SubscriptionRoutes#BASE} and in its
 * shapes: {@code GET /id/{id}/diagnosticInfo} and {@code /name/{name}/diagnosticInfo}
 * ({@code EventSubscriptionDiagnosticInfo}; {@code limit} 15, {@code paginationOffset} 0, {@code listCountOnly}),
 * {@code /id|name/…/eventsRecord} ({@code EventsRecord}), {@code /id|name/…/failedEvents} and
 * {@code /listAllFailedEvents} (lists of {@code FailedEventResponse}; {@code limit}, {@code paginationOffset},
 * {@code source}), {@code /id|name/…/listSuccessfullySentChangeEvents} (a list of {@code ChangeEvent}) and
 * {@code POST /testDestination}. Behind the admin token; a bad parameter is a 400 naming it; errors go through the
 * app's one mapper. Register before {@link SubscriptionRoutes} (its {@code /{id}} would take
 * {@code /listAllFailedEvents}). Javalin's request threads.
 */
public final class DiagnosticsRoutes {

    private static final String BASE = SubscriptionRoutes.BASE;
    private static final int DEFAULT_LIMIT = 15;

    private final SubscriptionStore store;
    private final DeliveryStatuses statuses;
    private final SubscriptionDiagnostics diagnostics;
    private final DestinationTester tester;
    private final String user;
    private final ObjectMapper mapper = Json.mapper();

    public DiagnosticsRoutes(SubscriptionStore store, DeliveryStatuses statuses, SubscriptionDiagnostics diagnostics,
                             DestinationTester tester, String user) {
        this.store = Objects.requireNonNull(store, "store");
        this.statuses = Objects.requireNonNull(statuses, "statuses");
        this.diagnostics = Objects.requireNonNull(diagnostics, "diagnostics");
        this.tester = Objects.requireNonNull(tester, "tester");
        this.user = user;
    }

    /** Registers the routes, each behind {@code guard} (the admin API's token check). */
    public void register(JavalinDefaultRoutingApi routes, Function<Handler, Handler> guard) {
        routes.get(BASE + "/listAllFailedEvents", guard.apply(ctx -> failed(ctx, null)));
        routes.post(BASE + "/testDestination", guard.apply(ctx -> json(ctx, tester.test(SubscriptionRoutes.readBody(ctx), user))));
        for (String by : List.of("id", "name")) {
            String path = BASE + "/" + by + "/{key}";
            routes.get(path + "/diagnosticInfo", guard.apply(ctx -> diagnosticInfo(ctx, find(ctx, by))));
            routes.get(path + "/eventsRecord", guard.apply(ctx -> eventsRecord(ctx, find(ctx, by))));
            routes.get(path + "/failedEvents", guard.apply(ctx -> failed(ctx, find(ctx, by).id())));
            routes.get(path + "/listSuccessfullySentChangeEvents", guard.apply(ctx -> json(ctx, mapper.valueToTree(
                    kafka(() -> diagnostics.sentEvents(find(ctx, by).id(), limit(ctx), offset(ctx)))))));
        }
    }

    private ActiveSubscription find(Context ctx, String by) {
        String key = ctx.pathParam("key");
        return (by.equals("id") ? store.get(key) : store.byName(key))
                .orElseThrow(() -> SubscriptionException.notFound(by.equals("id") ? key : "named " + key));
    }

    private void diagnosticInfo(Context ctx, ActiveSubscription subscription) throws Exception {
        boolean countOnly = bool(ctx, "listCountOnly");
        int limit = limit(ctx);
        int offset = offset(ctx);
        SubscriptionDiagnostics.Diagnosis d = kafka(() -> diagnostics.diagnose(subscription,
                StartingPoint.of(subscription.subscription()), countOnly ? 0 : limit, offset));
        ObjectNode out = mapper.createObjectNode()
                .put("latestOffset", d.latestOffset())
                .put("currentOffset", d.currentOffset())
                .put("startingOffset", d.startingOffset())
                .put("hasProcessedAllEvents", d.totalUnprocessed() == 0)
                .put("relevantUnprocessedEventsCount", d.relevantUnprocessed())
                .put("totalUnprocessedEventsCount", d.totalUnprocessed());
        if (!countOnly) {
            out.set("relevantUnprocessedEventsList", mapper.valueToTree(d.relevantList()));
            out.set("totalUnprocessedEventsList", mapper.valueToTree(d.totalList()));
        }
        ObjectNode ext = out.putObject("changestream") // per-partition figures and how the count was made
                .put("estimated", d.estimated()).put("sampledEvents", d.sampled())
                .put("offsetsMillis", d.offsetsMicros() / 1_000.0).put("scanMillis", d.scanMicros() / 1_000.0);
        ext.set("partitions", mapper.valueToTree(d.partitions()));
        json(ctx, out);
    }

    private void eventsRecord(Context ctx, ActiveSubscription subscription) throws Exception {
        statuses.current();
        long successful = 0;
        long failed = 0;
        for (DestinationStatus s : statuses.statuses(subscription.subscription())) { // events, not notifications
            successful = Math.max(successful, s.delivered() + s.skipped());
            failed = Math.max(failed, s.deadLettered());
        }
        SubscriptionDiagnostics.Diagnosis d = kafka(() -> diagnostics.diagnose(subscription,
                StartingPoint.of(subscription.subscription()), 0, 0));
        long pending = d.relevantUnprocessed();
        json(ctx, mapper.createObjectNode().put("totalEventsCount", pending + successful + failed)
                .put("pendingEventsCount", pending).put("successfulEventsCount", successful)
                .put("failedEventsCount", failed));
    }

    private void failed(Context ctx, String subscriptionId) throws Exception {
        FailureSource source = source(ctx);
        List<FailedEvent> events = kafka(() -> diagnostics.failedEvents(subscriptionId, source, limit(ctx),
                offset(ctx)));
        ArrayNode out = mapper.createArrayNode();
        for (FailedEvent f : events) {
            ObjectNode n = out.addObject().put("failingSubscriptionId", f.subscriptionId());
            n.set("changeEvent", mapper.valueToTree(f.changeEvent()));
            n.put("reason", Redaction.reason(f.reason())).put("source", f.source().name())
                    .put("timestamp", f.timestamp());
        }
        json(ctx, out);
    }

    private static <T> T kafka(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (IllegalStateException e) {
            throw new SubscriptionException(503, e.getMessage(), e);
        }
    }

    private void json(Context ctx, com.fasterxml.jackson.databind.JsonNode body) throws Exception {
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsString(body));
    }

    private int limit(Context ctx) {
        int max = diagnostics.settings().maxLimit();
        int limit = integer(ctx, "limit", DEFAULT_LIMIT);
        if (limit > max) {
            throw SubscriptionException.invalid("limit", "must be at most " + max + ", was " + limit);
        }
        return limit;
    }

    private static int offset(Context ctx) {
        return integer(ctx, "paginationOffset", 0);
    }

    private static int integer(Context ctx, String name, int fallback) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        int value;
        try {
            value = Integer.parseInt(raw.strip());
        } catch (NumberFormatException e) {
            throw SubscriptionException.invalid(name, "must be an integer, was '" + abbreviate(raw) + "'");
        }
        if (value < 0) {
            throw SubscriptionException.invalid(name, "must be greater than or equal to 0, was " + value);
        }
        return value;
    }

    private static boolean bool(Context ctx, String name) {
        String raw = ctx.queryParam(name);
        if (raw == null || raw.isBlank()) {
            return false;
        }
        return switch (raw.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw SubscriptionException.invalid(name, "must be true or false, was '" + abbreviate(raw)
                    + "'");
        };
    }

    private static FailureSource source(Context ctx) {
        String raw = ctx.queryParam("source");
        if (raw == null || raw.isBlank()) {
            return null;
        }
        for (FailureSource s : FailureSource.values()) {
            if (s.name().equalsIgnoreCase(raw.strip())) {
                return s;
            }
        }
        throw SubscriptionException.invalid("source", "must be one of " + List.of(FailureSource.values())
                + ", was '" + abbreviate(raw) + "'");
    }

    private static String abbreviate(String raw) {
        return raw.length() > 40 ? raw.substring(0, 40) + "…" : raw;
    }
}
