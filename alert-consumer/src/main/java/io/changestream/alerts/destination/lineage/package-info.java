/**
 * OpenLineage: pipeline run status transitions (topic {@code pipeline-status}) become OpenLineage RunEvents
 * (openlineage-java's model) sent over HTTP (batched, gzip above a threshold) or to a Kafka topic.
 */
package io.changestream.alerts.destination.lineage;
