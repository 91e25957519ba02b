/**
 * OpenLineage: pipeline run status transitions (topic {@code pipeline-status}) become OpenLineage RunEvents
 * (openlineage-java's model) with the pipeline's service as input and output datasets and the job type, engine,
 * nominal time and error facets, sent over HTTP (batched across lanes, gzip above a threshold, an
 * Idempotency-Key per request) or to a Kafka topic.
 */
package io.changestream.alerts.destination.lineage;
