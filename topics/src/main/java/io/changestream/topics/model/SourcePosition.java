package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Where a {@link ChangeEvent} came from in the source database. Added by the cdc-connector; absent on events that
 * were not captured from a database log.
 *
 * @param table         the source table, e.g. {@code public.change_event} or {@code openmetadata_db.change_event}
 * @param sourceOffset  the {@code offset} column of the {@code change_event} row (the platform's auto-increment)
 * @param logPosition   the log position: a Postgres LSN, a binlog {@code file:pos} or a GTID
 * @param commitTimeMs  commit time of the source transaction, epoch milliseconds
 * @param captureTimeMs when the connector read the row from the log, epoch milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SourcePosition(
        String table,
        Long sourceOffset,
        String logPosition,
        Long commitTimeMs,
        Long captureTimeMs) {
}
