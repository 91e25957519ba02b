/**
 * The delivery core's decisions (decision 2102): what a destination's result means for its pair — done, retried
 * inline, parked on the retry path, the destination suspended, or dead-lettered ({@link
 * io.changestream.alerts.delivery.DeliveryDecision}). A pure function over a result and the pair's facts; the main
 * path, the retry path and the digest rounds ask here. Imports only the destination contract.
 */
package io.changestream.alerts.delivery;
