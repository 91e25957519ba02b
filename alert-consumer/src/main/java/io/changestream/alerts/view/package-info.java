/**
 * Read-only views of Kafka topics: {@link io.changestream.alerts.view.ViewReader}, the one reader that reads topics to
 * their end and then follows them for the subscriptions view, the destination states and the {@code /status} view
 * (decision 2702). Depends on nothing of the alert domain.
 */
package io.changestream.alerts.view;
