/** The {@code cdc-latency} benchmark: commit → record-in-Kafka latency of the cdc-connector vs polling the table. */
package io.changestream.bench.cdc;
