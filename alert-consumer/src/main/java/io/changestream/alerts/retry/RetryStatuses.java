package io.changestream.alerts.retry;

import io.changestream.alerts.subscription.DeliveryStatuses;
import io.changestream.alerts.subscription.DestinationStatus;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code GET …/{id}/status} with the retry path's group-wide state on top of the ledger/DLQ view: a suspended
 * destination is {@code disabled} with the suspension as {@code lastFailedReason}; one whose pairs wait in the
 * retry path is {@code awaitingRetry} (the platform's values). Everything else as the view says. Thread-safe.
 */
final class RetryStatuses implements DeliveryStatuses {

    /** The platform's status of a destination that does not deliver now. */
    static final String DISABLED = "disabled";
    /** The platform's status of a destination with pairs waiting for a retry. */
    static final String AWAITING_RETRY = "awaitingRetry";

    private final DeliveryStatuses view;
    private final RetryService retry;

    RetryStatuses(DeliveryStatuses view, RetryService retry) {
        this.view = view;
        this.retry = retry;
    }

    @Override
    public List<DestinationStatus> statuses(EventSubscription subscription) {
        Map<String, SubscriptionDestination> byMember = RetryService.byMember(subscription);
        List<DestinationStatus> out = new ArrayList<>();
        for (DestinationStatus s : view.statuses(subscription)) {
            SubscriptionDestination d = byMember.get(s.destinationId());
            if (d == null || DISABLED.equals(s.status())) {
                out.add(s);
                continue;
            }
            String suspension = retry.suspension(subscription, d);
            if (suspension != null) {
                out.add(with(s, DISABLED, "suspended: " + suspension));
            } else if (retry.backlogged(subscription, d)) {
                out.add(with(s, AWAITING_RETRY, s.lastFailedReason()));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private static DestinationStatus with(DestinationStatus s, String status, String reason) {
        return new DestinationStatus(s.destinationId(), s.type(), status, s.delivered(), s.failed(), s.deadLettered(),
                s.lastSuccessfulAt(), s.lastFailedAt(), reason, s.nextAttempt(), s.skipped());
    }

    @Override
    public void forget(String subscriptionId) {
        view.forget(subscriptionId);
    }

    @Override
    public boolean current() {
        return view.current();
    }
}
