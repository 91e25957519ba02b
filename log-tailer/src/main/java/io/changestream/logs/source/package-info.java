/**
 * Where run logs are read from: a {@link io.changestream.logs.source.LogSource} per run with opaque, per-source
 * cursors — files under a storage root (line offsets), the platform's object-storage layout read by ranged GETs
 * (byte offsets) or the platform's Airflow plugin {@code last_dag_logs} ({@code chunk:charsDelivered}).
 * {@link io.changestream.logs.source.SourceResolver} picks one by where the bytes are.
 */
package io.changestream.logs.source;
