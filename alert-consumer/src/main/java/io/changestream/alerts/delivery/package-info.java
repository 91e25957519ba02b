/**
 * The delivery core's decisions (decision 2102): what a destination's result means for its pair — done, retried
 * inline, parked on the retry path, the destination suspended, or dead-lettered ({@link
 * io.changestream.alerts.delivery.DeliveryDecision}) — and the bounded failure-reason label of the delivery meters
 * ({@link io.changestream.alerts.delivery.FailureReason}). Pure functions over a result and the pair's facts; the
 * main path, the retry path and the digest flusher all ask here. Imports only the destination contract.
 */
package io.changestream.alerts.delivery;
