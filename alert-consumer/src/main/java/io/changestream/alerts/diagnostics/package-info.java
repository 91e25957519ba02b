/**
 * The platform's status endpoints of a subscription (issue 26): its diagnostics computed from Kafka (log end, the
 * group's committed offsets, its starting point, its unprocessed events over the lag, bounded), its events record,
 * the lists of sent events (from the ledger, read back from the source topics) and failed events (from
 * {@code alert-dlq}), the test-destination call through the real delivery path, and the DLQ depth gauge (records held
 * in {@code alert-dlq}, read periodically with the same admin client).
 */
package io.changestream.alerts.diagnostics;
