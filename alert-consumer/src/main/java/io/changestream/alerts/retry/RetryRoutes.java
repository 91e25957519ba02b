package io.changestream.alerts.retry;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.subscription.SubscriptionException;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.alerts.subscription.SubscriptionService;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.Json;
import io.javalin.http.Handler;
import java.util.List;

/**
 * The admin call of the retry path: {@code POST /api/v1/events/subscriptions/{id}/resume[?destination=<id>]}
 * resumes the subscription's destinations (or the one named) group-wide — a suspended destination is delivered to
 * again, parked and waiting pairs are tried now, in order — and answers {@code {"id", "resumed": [ids]}}. 404 for an
 * unknown subscription, 400 naming {@code destination} for an id the subscription does not have. Behind the admin
 * bearer token (the caller guards it); errors through {@code ApiErrors}.
 */
public final class RetryRoutes {

    /** The resume path. */
    public static final String RESUME = SubscriptionRoutes.BASE + "/{id}/resume";

    private final SubscriptionService subscriptions;
    private final RetryService retry;
    private final String user;

    public RetryRoutes(SubscriptionService subscriptions, RetryService retry, String user) {
        this.subscriptions = subscriptions;
        this.retry = retry;
        this.user = user;
    }

    /** The handler of {@link #RESUME}. */
    public Handler resume() {
        return ctx -> {
            EventSubscription subscription = subscriptions.get(ctx.pathParam("id"));
            String destination = ctx.queryParam("destination");
            if (destination != null && subscription.destinations().stream()
                    .noneMatch(d -> destination.equals(d.id()))) {
                throw SubscriptionException.invalid("destination", "subscription " + subscription.id()
                        + " has no destination with this id");
            }
            List<String> resumed = retry.resume(subscription, destination, user);
            ObjectNode body = Json.mapper().createObjectNode().put("id", subscription.id());
            ArrayNode ids = body.putArray("resumed");
            resumed.forEach(ids::add);
            ctx.status(200).contentType("application/json").result(Json.mapper().writeValueAsString(body));
        };
    }
}
