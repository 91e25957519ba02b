/**
 * Once per group: the delivery ledger on the compacted {@code alert-ledger} topic. Settled (subscription, event) pairs
 * are written to the partition number of their source event and acked before the event is marked done; on
 * assignment of a source partition the window of pairs that can come back (offsets from the committed one on) is
 * rebuilt from the same ledger partition and checked before every delivery.
 */
package io.changestream.alerts.ledger;
