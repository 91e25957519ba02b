/**
 * The alert service: its validated config ({@link io.changestream.alerts.service.AlertServiceConfig}), the wiring of
 * subscriptions, destinations, ledger and processor on the consumer runtime
 * ({@link io.changestream.alerts.service.AlertService}), the HTTP server (admin API, status, health, metrics) and the
 * command-line entry ({@link io.changestream.alerts.service.AlertServiceMain}).
 */
package io.changestream.alerts.service;
