package io.changestream.alerts.subscription;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.Secrets;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin REST routes of subscriptions, the platform's paths under {@value #BASE}: POST (create, 201), PUT
 * (create or update by name), PUT {@code /{id}}, GET (list as {@code {data, paging}}), GET {@code /{id}}, GET
 * {@code /name/{name}}, DELETE {@code /{id}}, DELETE {@code /name/{name}}, and GET {@code /{id}/status} (per
 * destination: counts, last success/failure, state) when a {@link DeliveryStatusBook} is given. Every request needs
 * {@code Authorization: Bearer <token>} (401 otherwise). Errors are the platform's {@code {code, message}}: 400
 * naming the field, 404, 409. Secrets in destination configs are masked in every response. Handlers run on
 * Javalin's request threads.
 *
 * <p>Registered on a Javalin 7 app's routes: {@code Javalin.create(c -> routes.register(c.routes))}.
 */
public final class SubscriptionRoutes {

    /** The platform's base path. */
    public static final String BASE = "/api/v1/events/subscriptions";

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionRoutes.class);

    private final SubscriptionService service;
    private final AdminApiSettings settings;
    private final DeliveryStatusBook statusBook;
    private final ObjectMapper mapper = Json.mapper();
    private final byte[] expectedAuthorization;

    /**
     * @param statusBook delivery status for {@code GET …/{id}/status}, or null to leave that route out
     */
    public SubscriptionRoutes(SubscriptionService service, AdminApiSettings settings, DeliveryStatusBook statusBook) {
        this.service = Objects.requireNonNull(service, "service");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.statusBook = statusBook;
        this.expectedAuthorization = ("Bearer " + settings.bearerToken()).getBytes(StandardCharsets.UTF_8);
    }

    /** Registers the routes. */
    public void register(JavalinDefaultRoutingApi routes) {
        routes.post(BASE, guarded(ctx -> respond(ctx, 201, service.create(body(ctx), settings.user()))));
        routes.put(BASE, guarded(ctx -> {
            SubscriptionService.Saved saved = service.createOrUpdate(body(ctx), settings.user());
            respond(ctx, saved.created() ? 201 : 200, saved.subscription());
        }));
        routes.get(BASE, guarded(ctx -> list(ctx, service.list())));
        routes.get(BASE + "/name/{name}", guarded(ctx -> respond(ctx, 200,
                service.getByName(ctx.pathParam("name")))));
        routes.delete(BASE + "/name/{name}", guarded(ctx -> respond(ctx, 200,
                service.deleteByName(ctx.pathParam("name")))));
        routes.get(BASE + "/{id}", guarded(ctx -> respond(ctx, 200, service.get(ctx.pathParam("id")))));
        routes.put(BASE + "/{id}", guarded(ctx -> respond(ctx, 200,
                service.update(ctx.pathParam("id"), body(ctx), settings.user()))));
        routes.delete(BASE + "/{id}", guarded(ctx -> {
            EventSubscription deleted = service.delete(ctx.pathParam("id"));
            if (statusBook != null) {
                statusBook.forget(deleted.id());
            }
            respond(ctx, 200, deleted);
        }));
        if (statusBook != null) {
            routes.get(BASE + "/{id}/status", guarded(ctx -> status(ctx, service.get(ctx.pathParam("id")))));
        }
    }

    /** The JSON a client sees: the stored subscription with every secret masked. */
    public JsonNode view(EventSubscription subscription) {
        ObjectNode json = mapper.valueToTree(subscription);
        JsonNode destinations = json.get("destinations");
        if (destinations != null && destinations.isArray()) {
            for (JsonNode destination : destinations) {
                if (destination.has("config")) {
                    ((ObjectNode) destination).set("config", Secrets.masked(destination.get("config")));
                }
            }
        }
        return json;
    }

    private Handler guarded(Handler handler) {
        return ctx -> {
            String authorization = ctx.header("Authorization");
            if (authorization == null || !MessageDigest.isEqual(expectedAuthorization,
                    authorization.getBytes(StandardCharsets.UTF_8))) {
                ctx.header("WWW-Authenticate", "Bearer");
                error(ctx, 401, "a valid bearer token is required");
                return;
            }
            try {
                handler.handle(ctx);
            } catch (SubscriptionException e) {
                error(ctx, e.status(), e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
                error(ctx, 500, "internal error");
            }
        };
    }

    private JsonNode body(Context ctx) {
        try {
            return mapper.readTree(ctx.bodyAsBytes());
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
        ObjectNode body = mapper.createObjectNode().put("id", subscription.id()).put("name", subscription.name())
                .put("enabled", subscription.enabled());
        body.set("destinations", mapper.valueToTree(statusBook.statuses(subscription)));
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsString(body));
    }

    private void list(Context ctx, List<EventSubscription> subscriptions) throws JsonProcessingException {
        ObjectNode page = mapper.createObjectNode();
        ArrayNode data = page.putArray("data");
        subscriptions.forEach(s -> data.add(view(s)));
        page.putObject("paging").put("total", subscriptions.size());
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsString(page));
    }

    private void error(Context ctx, int status, String message) {
        ObjectNode body = mapper.createObjectNode().put("code", status).put("message", message);
        ctx.status(status).contentType("application/json").result(body.toString());
    }
}
