/**
 * Alert subscriptions: the platform's CreateEventSubscription request turned into the stored EventSubscription
 * ({@link io.changestream.alerts.subscription.SubscriptionFactory}), the store backed by the compacted
 * {@code subscriptions} topic with a read-only in-memory view fed by one reader thread
 * ({@link io.changestream.alerts.subscription.SubscriptionStore}), and the admin REST routes
 * ({@link io.changestream.alerts.subscription.SubscriptionRoutes}).
 */
package io.changestream.alerts.subscription;
