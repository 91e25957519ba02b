/**
 * Row to envelope mapping: the Kafka Connect SMT {@link io.changestream.cdc.transform.ChangeEventTransform} and the pure
 * {@link io.changestream.cdc.transform.RowMapper} behind it (filters, masks, size bound, dead letters). Runs unchanged on a
 * Kafka Connect cluster.
 */
package io.changestream.cdc.transform;
