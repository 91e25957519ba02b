package io.changestream.cdc.transform;

import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/** Debezium-shaped change records (the envelope Debezium's Postgres and MariaDB connectors emit), for SMT tests. */
final class DebeziumRecords {

    static final Schema PG_SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("db", Schema.STRING_SCHEMA).field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA).build();
    static final Schema MARIADB_SOURCE = SchemaBuilder.struct().name("io.debezium.connector.mariadb.Source")
            .field("db", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA).field("file", Schema.STRING_SCHEMA)
            .field("pos", Schema.INT64_SCHEMA).field("row", Schema.INT32_SCHEMA).build();
    static final Schema CHANGE_EVENT_ROW = SchemaBuilder.struct().optional()
            .field("offset", Schema.INT32_SCHEMA).field("eventtype", Schema.OPTIONAL_STRING_SCHEMA)
            .field("json", Schema.STRING_SCHEMA).build();
    static final Schema STATUS_ROW = SchemaBuilder.struct().optional()
            .field("entityfqnhash", Schema.STRING_SCHEMA).field("extension", Schema.STRING_SCHEMA)
            .field("jsonschema", Schema.STRING_SCHEMA).field("json", Schema.STRING_SCHEMA).build();

    private DebeziumRecords() {
    }

    static SourceRecord pgChangeEvent(String op, int offset, String json, long lsn, long commitMs) {
        Struct source = new Struct(PG_SOURCE).put("db", "postgres").put("schema", "public")
                .put("table", "change_event").put("ts_ms", commitMs).put("lsn", lsn);
        Struct row = new Struct(CHANGE_EVENT_ROW).put("offset", offset).put("json", json);
        return envelope("cs-cdc.public.change_event", CHANGE_EVENT_ROW, source, op, row, commitMs + 5);
    }

    static SourceRecord mariaChangeEvent(int offset, String json, String file, long pos, int rowInEvent,
                                         long commitMs) {
        Struct source = new Struct(MARIADB_SOURCE).put("db", "platform").put("table", "change_event")
                .put("ts_ms", commitMs).put("file", file).put("pos", pos).put("row", rowInEvent);
        Struct row = new Struct(CHANGE_EVENT_ROW).put("offset", offset).put("json", json);
        return envelope("cs-cdc.platform.change_event", CHANGE_EVENT_ROW, source, "c", row, commitMs + 3);
    }

    static SourceRecord pgStatus(String op, String fqnHash, String extension, String json, long lsn) {
        Struct source = new Struct(PG_SOURCE).put("db", "postgres").put("schema", "public")
                .put("table", "entity_extension_time_series").put("ts_ms", 1_000L).put("lsn", lsn);
        Struct row = new Struct(STATUS_ROW).put("entityfqnhash", fqnHash).put("extension", extension)
                .put("jsonschema", "pipelineStatus").put("json", json);
        return envelope("cs-cdc.public.entity_extension_time_series", STATUS_ROW, source, op, row, 1_010L);
    }

    private static SourceRecord envelope(String topic, Schema rowSchema, Struct source, String op, Struct row,
                                         long captureMs) {
        Schema schema = SchemaBuilder.struct().name(topic + ".Envelope")
                .field("before", rowSchema).field("after", rowSchema).field("source", source.schema())
                .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
        Struct value = new Struct(schema).put("source", source).put("op", op).put("ts_ms", captureMs);
        value.put("d".equals(op) ? "before" : "after", row);
        return new SourceRecord(Map.of("server", "cs-cdc"), Map.of("lsn", 1L), topic, null, null, null, schema,
                value);
    }
}
