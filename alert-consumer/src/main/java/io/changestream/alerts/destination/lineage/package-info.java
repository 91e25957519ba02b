/**
 * OpenLineage: pipeline run status transitions (topic {@code pipeline-status}) become OpenLineage RunEvents
 * (openlineage-java's model) with the run's assets as input and output datasets (the service when the platform's
 * lineage is not asked), the job type, engine, nominal time and error facets and, on FAIL and ABORT, the
 * {@code changestream_impact} facet (issue 28), sent over HTTP (batched across lanes, gzip above a threshold, an
 * Idempotency-Key per request) or to a Kafka topic.
 */
package io.changestream.alerts.destination.lineage;
