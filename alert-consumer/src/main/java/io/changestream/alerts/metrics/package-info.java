/** The meter catalogue of alert-consumer ({@link io.changestream.alerts.metrics.AlertMeter}). */
package io.changestream.alerts.metrics;
