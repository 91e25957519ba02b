package io.changestream.alerts.subscription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.Secrets;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.Json;
import io.changestream.web.BearerTokens;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.util.Objects;

/**
 * The admin REST routes of subscriptions, the platform's paths under {@value #BASE}: POST (create, 201), PUT
 * (create or update by name), PUT {@code /{id}}, GET (list as {@code {data, paging}}, a page of {@code limit} by name,
 * {@code paging.after} the cursor of the next), GET {@code /{id}}, GET
 * {@code /name/{name}}, DELETE {@code /{id}}, DELETE {@code /name/{name}}, and GET {@code /{id}/status} (per
 * destination: counts, last success/failure, state) when {@link DeliveryStatuses} are given. Every request needs
 * {@code Authorization: Bearer <token>} (401 otherwise). Errors are the platform's {@code {code, message}}: 400
 * naming the field, 404, 409, 413 for a body over {@code admin.maxRequestBytes} (one mapper: {@link ApiErrors}).
 * Secrets in destination configs are masked in every response. Handlers run on Javalin's request threads.
 *
 * <p>Installed on a Javalin 7 app: {@code Javalin.create(routes::install)}.
 */
public final class SubscriptionRoutes {

    /** The platform's base path. */
    public static final String BASE = "/api/v1/events/subscriptions";

    private final SubscriptionService service;
    private final AdminApiSettings settings;
    private final DeliveryStatuses statuses;
    private final ObjectMapper mapper = Json.mapper();
    private final BearerTokens tokens;

    /**
     * @param statuses delivery status for {@code GET …/{id}/status}, or null to leave that route out
     */
    public SubscriptionRoutes(SubscriptionService service, AdminApiSettings settings, DeliveryStatuses statuses) {
        this.service = Objects.requireNonNull(service, "service");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.statuses = statuses;
        this.tokens = BearerTokens.of(settings.bearerToken());
    }

    /** Registers the routes and {@link ApiErrors} (the body limit, the error mapper) on a Javalin 7 config. */
    public void install(JavalinConfig config) {
        ApiErrors.install(config, settings);
        register(config.routes);
    }

    /** Registers the routes only (errors need {@link ApiErrors} on the app: {@link #install} does both). */
    public void register(JavalinDefaultRoutingApi routes) {
        routes.post(BASE, guarded(ctx -> respond(ctx, 201, service.create(readBody(ctx), settings.user()))));
        routes.put(BASE, guarded(ctx -> {
            SubscriptionService.Saved saved = service.createOrUpdate(readBody(ctx), settings.user());
            respond(ctx, saved.created() ? 201 : 200, saved.subscription());
        }));
        routes.get(BASE, guarded(ctx -> list(ctx, service.list(limit(ctx), ctx.queryParam("after")))));
        routes.get(BASE + "/name/{name}", guarded(ctx -> respond(ctx, 200,
                service.getByName(ctx.pathParam("name")))));
        routes.delete(BASE + "/name/{name}", guarded(ctx -> respond(ctx, 200,
                service.deleteByName(ctx.pathParam("name")))));
        routes.get(BASE + "/{id}", guarded(ctx -> respond(ctx, 200, service.get(ctx.pathParam("id")))));
        routes.put(BASE + "/{id}", guarded(ctx -> respond(ctx, 200,
                service.update(ctx.pathParam("id"), readBody(ctx), settings.user()))));
        routes.delete(BASE + "/{id}", guarded(ctx -> {
            EventSubscription deleted = service.delete(ctx.pathParam("id"));
            if (statuses != null) {
                statuses.forget(deleted.id());
            }
            respond(ctx, 200, deleted);
        }));
        if (statuses != null) {
            routes.get(BASE + "/{id}/status", guarded(ctx -> status(ctx, service.get(ctx.pathParam("id")))));
        }
    }

    /** The JSON a client sees: the stored subscription with every secret masked. */
    public JsonNode view(EventSubscription subscription) {
        ObjectNode json = mapper.valueToTree(subscription);
        JsonNode destinations = json.get("destinations");
        if (destinations != null && destinations.isArray()) {
            for (int i = 0; i < destinations.size() && i < subscription.destinations().size(); i++) {
                JsonNode destination = destinations.get(i);
                if (destination.has("config")) {
                    ((ObjectNode) destination).set("config", Secrets.masked(
                            subscription.destinations().get(i).type(), destination.get("config")));
                }
            }
        }
        return json;
    }

    /** {@code handler} behind the admin API's bearer token (401 without it); other routes of the API use it too. */
    public Handler guarded(Handler handler) {
        return ctx -> {
            if (!tokens.allows(ctx.header("Authorization"))) {
                ctx.header("WWW-Authenticate", BearerTokens.CHALLENGE);
                error(ctx, 401, "a valid bearer token is required");
                return;
            }
            handler.handle(ctx); // failures go to ApiErrors, the app's one mapper
        };
    }

    /**
     * A request's JSON body: 400 naming {@code body} when it is not JSON; over {@code admin.maxRequestBytes}
     * Javalin's 413, mapped by {@code ApiErrors}. Every route of the admin API reads its body with this.
     */
    public static JsonNode readBody(Context ctx) {
        byte[] bytes = ctx.bodyAsBytes();
        try {
            return Json.mapper().readTree(bytes);
        } catch (JsonProcessingException e) {
            throw SubscriptionException.invalid("body", "is not valid JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw SubscriptionException.invalid("body", "cannot be read");
        }
    }

    private void respond(Context ctx, int status, EventSubscription subscription) throws JsonProcessingException {
        ctx.status(status).contentType("application/json").result(mapper.writeValueAsString(view(subscription)));
    }

    private void status(Context ctx, EventSubscription subscription) throws JsonProcessingException {
        boolean current = statuses.current(); // first: a topic-built view catches up to now (bounded)
        ObjectNode body = mapper.createObjectNode().put("id", subscription.id()).put("name", subscription.name())
                .put("enabled", subscription.enabled());
        body.set("destinations", mapper.valueToTree(statuses.statuses(subscription)));
        body.put("current", current);
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsString(body));
    }

    private void list(Context ctx, SubscriptionService.Page page) throws JsonProcessingException {
        ObjectNode body = mapper.createObjectNode();
        ArrayNode data = body.putArray("data");
        page.data().forEach(s -> data.add(view(s)));
        ObjectNode paging = body.putObject("paging").put("total", page.total());
        if (page.after() != null) {
            paging.put("after", page.after());
        }
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsString(body));
    }

    private static Integer limit(Context ctx) {
        String limit = ctx.queryParam("limit");
        if (limit == null) {
            return null;
        }
        try {
            return Integer.parseInt(limit.strip());
        } catch (NumberFormatException e) {
            throw SubscriptionException.invalid("limit", "must be an integer, was '" + limit + "'");
        }
    }

    private static void error(Context ctx, int status, String message) {
        ApiErrors.write(ctx, status, message);
    }
}
