package io.changestream.alerts.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.subscription.SubscriptionException;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.topics.serde.Json;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.time.Clock;
import java.util.function.Function;

/**
 * The admin API of replays, behind the admin bearer token: {@code POST /api/v1/events/replays} with
 * {@code {"group", "subscriptions": [ids], "from", "to"}} starts one (202 and its status; 400 naming a bad field,
 * 409 for a group that exists, 429 when {@code replay.maxRunning} run), {@code GET …/replays} lists this
 * instance's, {@code GET …/replays/{group}} is one's status and {@code DELETE …/replays/{group}} stops it (404 for
 * a replay this instance does not hold). Errors through {@code ApiErrors}.
 */
public final class ReplayRoutes {

    /** The replays' path. */
    public static final String BASE = "/api/v1/events/replays";

    private final Replays replays;
    private final Clock clock;

    public ReplayRoutes(Replays replays, Clock clock) {
        this.replays = replays;
        this.clock = clock;
    }

    /** Registers the routes, each through {@code guard} (the admin token). */
    public void register(JavalinDefaultRoutingApi routes, Function<Handler, Handler> guard) {
        routes.post(BASE, guard.apply(ctx -> {
            ObjectNode status = replays.start(ReplayRequest.parse(SubscriptionRoutes.readBody(ctx), clock));
            ctx.header("Location", BASE + "/" + status.get("group").asText());
            json(ctx, 202, status);
        }));
        routes.get(BASE, guard.apply(ctx -> {
            ObjectNode out = Json.mapper().createObjectNode();
            out.putArray("data").addAll(replays.list());
            json(ctx, 200, out);
        }));
        routes.get(BASE + "/{group}", guard.apply(ctx -> json(ctx, 200, replays.status(ctx.pathParam("group"))
                .orElseThrow(() -> notFound(ctx)))));
        routes.delete(BASE + "/{group}", guard.apply(ctx -> json(ctx, 200, replays.stop(ctx.pathParam("group"))
                .orElseThrow(() -> notFound(ctx)))));
    }

    private static SubscriptionException notFound(Context ctx) {
        return new SubscriptionException(404, "replay " + ctx.pathParam("group") + " not found on this instance");
    }

    private static void json(Context ctx, int status, JsonNode body) throws Exception {
        ctx.status(status).contentType("application/json").result(Json.mapper().writeValueAsString(body));
    }
}
