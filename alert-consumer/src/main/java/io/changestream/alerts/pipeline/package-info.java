/**
 * The alert processor on the consumer runtime: each event of {@code changes} (and each run status of
 * {@code pipeline-status}) is matched against every enabled subscription, delivered once per destination group,
 * settled in the delivery ledger, and dead-lettered with its reason when it cannot be delivered.
 */
package io.changestream.alerts.pipeline;
