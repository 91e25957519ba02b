/**
 * The {@code e2e} benchmark: rows committed to PostgreSQL reach a webhook through the cdc-connector and the alert
 * service; measured against the platform's 10-second poll in the same run.
 */
package io.changestream.bench.e2e;
