package io.changestream.cdc.transform;

/**
 * One row change as read from the database log, reduced to what the mapping needs. Built by
 * {@link ChangeEventTransform} from a Debezium record.
 *
 * @param table         qualified source table, e.g. {@code public.change_event}
 * @param tableName     unqualified table name, matched against the settings
 * @param operation     Debezium op: {@code c} insert, {@code u} update, {@code d} delete, {@code r} snapshot read
 * @param sourceOffset  the {@code offset} column (change_event only), may be null
 * @param json          the {@code json} column as text (after image; before image for deletes), may be null
 * @param extension     the {@code extension} column (status table only), may be null
 * @param fqnColumn     the {@code entityFQN} or {@code entityFQNHash} column (status table only), may be null
 * @param logPosition   LSN or binlog {@code file:pos:row}
 * @param commitTimeMs  commit time of the source transaction, may be null
 * @param captureTimeMs when Debezium read the change
 */
public record CapturedRow(
        String table,
        String tableName,
        String operation,
        Long sourceOffset,
        String json,
        String extension,
        String fqnColumn,
        String logPosition,
        Long commitTimeMs,
        long captureTimeMs) {

    /** True for an insert or a snapshot read. */
    public boolean isInsert() {
        return "c".equals(operation) || "r".equals(operation);
    }
}
