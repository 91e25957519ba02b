/**
 * Destinations: deliver one event of one subscription to one destination over its real protocol (webhook, Slack,
 * MS Teams, Google Chat, SMTP e-mail, OpenLineage) and say what happened as a {@link
 * io.changestream.alerts.destination.DeliveryResult} (delivered, retry after, permanent). Also owns the outbound
 * safety rails: the SSRF guard, bounded payloads, per-destination circuit breakers and secret masking.
 * Destinations are called from the runtime's processor threads and are thread-safe.
 */
package io.changestream.alerts.destination;
