package io.changestream.alerts.destination;

import io.changestream.alerts.destination.lineage.OpenLineageDestination;
import io.changestream.alerts.impact.Impact;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionCategory;
import java.util.concurrent.CompletableFuture;

/**
 * The failure impact of a run-status request to a destination of category DownstreamOwners (issue 28): resolved
 * within {@code impact.timeout} and limited to the destination's tiers ({@code config.impactTiers}, else
 * {@code impact.tiers}). Stateless.
 */
final class Impacts {

    private Impacts() {
    }

    /** Whether the request is a run status to an impact receiver and there is a resolver. */
    static boolean wanted(DeliveryRequest request, ImpactResolver resolver) {
        return resolver != null && request.runStatus() != null
                && request.destination().category() == SubscriptionCategory.DOWNSTREAM_OWNERS;
    }

    /** The request's impact, limited to its tiers; completes within {@code impact.timeout}, never exceptionally. */
    static CompletableFuture<Impact> of(DeliveryRequest request, ImpactResolver resolver) {
        java.util.Set<String> tiers = OpenLineageDestination.tiers(request.destination().config(),
                resolver.settings().tiers());
        return resolver.resolveAsync(request.runStatus()).thenApply(i -> i.limitedTo(tiers));
    }
}
