/**
 * Durable, group-wide delivery status: {@link io.changestream.alerts.status.DeliveryStatusView} folds
 * {@code alert-ledger} and {@code alert-dlq} into per-(subscription, destination) counts of unique notifications, so
 * every instance of a group answers {@code GET …/{id}/status} with the same numbers, also after restarts.
 */
package io.changestream.alerts.status;
