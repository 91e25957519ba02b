package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.impact.Impact;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionCategory;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The failure impact of a run-status request to a destination of category DownstreamOwners (issue 28): resolved
 * within {@code impact.timeout} and limited to the destination's tiers ({@code config.impactTiers}, else
 * {@code impact.tiers}). Stateless.
 */
public final class Impacts {

    private Impacts() {
    }

    /** Whether the request is a run status to an impact receiver and there is a resolver. */
    public static boolean wanted(DeliveryRequest request, ImpactResolver resolver) {
        return resolver != null && request.runStatus() != null
                && request.destination().category() == SubscriptionCategory.DOWNSTREAM_OWNERS;
    }

    /**
     * {@code send} once the request's impact is known (within {@code impact.timeout}); cancelling the returned stage
     * cancels the send (its HTTP exchange is aborted), as cancelling a send of its own would.
     */
    public static CompletableFuture<DeliveryResult> sendWith(DeliveryRequest request, ImpactResolver resolver,
                                                      Function<Impact, CompletionStage<DeliveryResult>> send) {
        CompletableFuture<DeliveryResult> out = new CompletableFuture<>();
        AtomicReference<CompletableFuture<DeliveryResult>> inner = new AtomicReference<>();
        of(request, resolver).thenAccept(impact -> {
            if (out.isDone()) {
                return;
            }
            CompletableFuture<DeliveryResult> sending = send.apply(impact).toCompletableFuture();
            inner.set(sending);
            sending.whenComplete((result, error) -> {
                if (error != null) {
                    out.completeExceptionally(error);
                } else {
                    out.complete(result);
                }
            });
            if (out.isCancelled()) {
                sending.cancel(true);
            }
        });
        out.whenComplete((result, error) -> {
            CompletableFuture<DeliveryResult> sending = inner.get();
            if (out.isCancelled() && sending != null) {
                sending.cancel(true);
            }
        });
        return out;
    }

    /** The request's impact, limited to its tiers; completes within {@code impact.timeout}, never exceptionally. */
    public static CompletableFuture<Impact> of(DeliveryRequest request, ImpactResolver resolver) {
        Set<String> tiers = tiers(request.destination().config(),
                resolver.settings().tiers());
        return resolver.resolveAsync(request.runStatus()).thenApply(i -> i.limitedTo(tiers));
    }

    /**
     * The tiers of {@code config.impactTiers}, or the fallback when the field is absent.
     *
     * @throws DestinationConfigException naming {@code config.impactTiers}
     */
    public static Set<String> tiers(JsonNode config, Set<String> fallback) {
        JsonNode t = config == null ? null : config.get("impactTiers");
        if (t == null || t.isNull()) {
            return fallback;
        }
        if (!t.isArray()) {
            throw new DestinationConfigException("config.impactTiers", "must be an array of tier tags such as "
                    + "[\"Tier.Tier1\"]");
        }
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode item : t) {
            if (!item.isTextual() || item.asText().isBlank()) {
                throw new DestinationConfigException("config.impactTiers", "must be an array of tier tags");
            }
            out.add(item.asText());
        }
        return out;
    }

}
