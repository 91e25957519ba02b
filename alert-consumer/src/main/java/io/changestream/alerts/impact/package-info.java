/**
 * Failure impact (issue 28, decision 2801): what a failed or aborted pipeline run hurts downstream, read from the
 * platform's lineage and entity APIs ({@link io.changestream.alerts.impact.ImpactResolver}, bounded in depth, nodes
 * and time, cached, one request in flight per pipeline), carried as an OpenLineage run facet and listed in impact
 * alerts to the owners of the impacted assets.
 */
package io.changestream.alerts.impact;
