package io.changestream.alerts.subscription;

import io.changestream.alerts.destination.Redaction;

/**
 * Delivery status of one destination of a subscription, as the platform's {@code SubscriptionStatus} plus counts.
 *
 * @param destinationId    the destination id
 * @param type             the destination type (platform name, e.g. {@code Webhook})
 * @param status           active | awaitingRetry | failed | retryLimitReached | disabled
 * @param delivered        notifications a receiver accepted (requests sent and acknowledged)
 * @param failed           failed attempts
 * @param deadLettered     events dead-lettered for this destination
 * @param lastSuccessfulAt last delivery, epoch ms, or null
 * @param lastFailedAt     last failure, epoch ms, or null
 * @param lastFailedReason reason of the last failure, or null; kept through {@link Redaction#reason} (issue 21: every
 *                         source of {@code /status} — this instance's book, the group-wide view, the retry path's
 *                         suspensions — passes here, so none shows a URL's path or query)
 * @param nextAttempt      when the next retry is due, epoch ms, or null
 * @param skipped          notifications settled without sending anything to this destination: it had nothing to
 *                         send (a run state outside a lineage destination's {@code statuses}, roles that select no
 *                         receiver); not counted in {@code delivered}
 */
public record DestinationStatus(String destinationId, String type, String status, long delivered, long failed,
                                long deadLettered, Long lastSuccessfulAt, Long lastFailedAt, String lastFailedReason,
                                Long nextAttempt, long skipped) {

    public DestinationStatus {
        lastFailedReason = Redaction.reason(lastFailedReason);
    }

    /** A status with nothing skipped. */
    public DestinationStatus(String destinationId, String type, String status, long delivered, long failed,
                             long deadLettered, Long lastSuccessfulAt, Long lastFailedAt, String lastFailedReason,
                             Long nextAttempt) {
        this(destinationId, type, status, delivered, failed, deadLettered, lastSuccessfulAt, lastFailedAt,
                lastFailedReason, nextAttempt, 0);
    }
}
