package io.changestream.alerts.subscription;

import io.changestream.alerts.filter.ActiveSubscription;

/**
 * A change the view applied, told to listeners on the reader thread (listeners must be quick and not block).
 *
 * @param id       the subscription id
 * @param current  the subscription now, or null when it was deleted
 * @param previous the subscription before, or null when it is new
 */
public record SubscriptionChange(String id, ActiveSubscription current, ActiveSubscription previous) {
}
