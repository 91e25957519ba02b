/** The generic webhook: its config, body, Standard Webhooks and OM signatures. */
package io.changestream.alerts.destination.webhook;
