/**
 * The CDC benchmarks: {@code cdc-latency} (commit → record-in-Kafka latency of the cdc-connector vs polling the table)
 * and {@code cdc-drain} (how fast the connector drains a backlog vs PostgreSQL's own decoder on the same slot).
 */
package io.changestream.bench.cdc;
