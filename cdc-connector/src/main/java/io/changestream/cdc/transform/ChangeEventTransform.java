package io.changestream.cdc.transform;

import io.changestream.cdc.CdcException;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingException;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.trace.TraceContext;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * Kafka Connect single message transform: a Debezium change record of {@code change_event} or the pipeline status
 * table → a record for {@code changes}, {@code pipeline-status} or {@code cdc-dlq} (String key, JSON String value,
 * use Connect's {@code StringConverter}). Records of other tables, heartbeats and tombstones pass through untouched.
 * Filtered and ignored rows are dropped ({@code skipped.records=drop}, for Connect) or passed on without key and value
 * but with the {@value #OUTCOME_HEADER} header ({@code mark}, what the embedded connector uses to count them and
 * commit their offsets). Every mapped record carries {@value #OUTCOME_HEADER}, {@value #TABLE_HEADER},
 * {@value #POSITION_HEADER} and {@value #CAPTURED_HEADER}; a produced one also a new W3C {@code traceparent} (a trace
 * per event, started at capture), so Connect and the embedded connector write the same headers.
 *
 * <p>Settings: see {@link TransformSettings}, plus {@value #VALUE_FORMAT}: {@code string} (the default: a String value
 * with {@link Schema#STRING_SCHEMA}, for Connect's {@code StringConverter}) or {@code bytes} (the UTF-8 JSON as a
 * {@code byte[]} with {@link Schema#BYTES_SCHEMA}: what the embedded connector sends as it is, without turning the JSON
 * into a String and back). Stateless after {@link #configure}; Connect may call {@link #apply} from several task
 * threads.
 *
 * @param <R> the Connect record type (SourceRecord on Debezium)
 */
public class ChangeEventTransform<R extends ConnectRecord<R>> implements Transformation<R> {

    /** Header naming the {@link RowOutcome} of a mapped row. */
    public static final String OUTCOME_HEADER = "cs.outcome";
    /** Header naming the qualified source table of a mapped row. */
    public static final String TABLE_HEADER = "cs.table";
    /** Header with the log position (LSN or binlog file:pos:row) of a mapped row. */
    public static final String POSITION_HEADER = "cs.position";
    /** Header with the capture time (epoch ms) of a mapped row. */
    public static final String CAPTURED_HEADER = "cs.captured.ms";
    /** Header with the reason a row was filtered or ignored ({@code mark} mode). */
    public static final String REASON_HEADER = "cs.reason";

    /** Setting: {@code string} (default) or {@code bytes}, the type of a mapped record's value. */
    public static final String VALUE_FORMAT = "value.format";

    private static final Setting<String> FORMAT = Setting.oneOf(VALUE_FORMAT, "string", "bytes")
            .defaultsTo("string").doc("string (a String value, for StringConverter) or bytes (UTF-8 JSON bytes, the "
                    + "embedded connector)");

    private volatile TransformSettings settings;
    private volatile RowMapper mapper;
    private volatile boolean bytesValue;

    @Override
    public void configure(Map<String, ?> configs) {
        SettingsReader reader = SettingsReader.of(configs);
        boolean bytes;
        TransformSettings read;
        try {
            bytes = "bytes".equals(reader.get(FORMAT));
            read = TransformSettings.from(reader);
        } catch (SettingException e) {
            throw new CdcException(e.getMessage(), e);
        }
        settings = read;
        mapper = new RowMapper(read);
        bytesValue = bytes;
    }

    @Override
    public R apply(R record) {
        if (!(record.value() instanceof Struct value)) {
            return record;
        }
        Schema schema = value.schema();
        if (schema.field("op") == null || schema.field("source") == null) {
            return record;
        }
        Struct source = value.getStruct("source");
        String tableName = stringField(source, "table");
        if (tableName == null || !mapper.captures(tableName)) {
            return record;
        }
        CapturedRow row = toRow(value, source, tableName);
        Mapping mapping;
        try {
            mapping = mapper.map(row);
        } catch (RuntimeException e) {
            // a bug or an input the mapper did not foresee: dead-letter the row rather than fail the engine on it
            // forever (the engine would restart and meet the same row again)
            mapping = mapper.failed(row, e);
        }
        Headers headers = record.headers().duplicate();
        headers.addString(OUTCOME_HEADER, mapping.outcome().tag());
        headers.addString(TABLE_HEADER, row.table());
        if (row.logPosition() != null) {
            headers.addString(POSITION_HEADER, row.logPosition());
        }
        headers.addString(CAPTURED_HEADER, Long.toString(row.captureTimeMs()));
        Long timestamp = row.commitTimeMs() != null ? row.commitTimeMs() : record.timestamp();
        if (mapping.outcome().isProduced()) {
            if (headers.lastWithName(TraceContext.HEADER) == null) {
                // the trace of an event starts at capture, on Connect as in the embedded connector
                headers.addString(TraceContext.HEADER, TraceContext.newTrace().format());
            }
            return bytesValue
                    ? record.newRecord(mapping.topic(), null, Schema.STRING_SCHEMA, mapping.key(), Schema.BYTES_SCHEMA,
                            mapping.value(), timestamp, headers)
                    : record.newRecord(mapping.topic(), null, Schema.STRING_SCHEMA, mapping.key(), Schema.STRING_SCHEMA,
                            mapping.valueText(), timestamp, headers);
        }
        if (!settings.markSkipped()) {
            return null;
        }
        headers.addString(REASON_HEADER, mapping.reason());
        return record.newRecord(record.topic(), record.kafkaPartition(), null, null, null, null, timestamp, headers);
    }

    private static CapturedRow toRow(Struct value, Struct source, String tableName) {
        String op = value.getString("op");
        Struct image = "d".equals(op) ? value.getStruct("before") : value.getStruct("after");
        String container = stringField(source, "schema");
        if (container == null) {
            container = stringField(source, "db");
        }
        String table = container == null ? tableName : container + "." + tableName;
        Object offset = column(image, "offset");
        Object json = column(image, "json");
        Object extension = column(image, "extension");
        Object fqn = column(image, "entityFQN");
        if (fqn == null) {
            fqn = column(image, "entityFQNHash");
        }
        Object commit = field(source, "ts_ms");
        Object capture = field(value, "ts_ms");
        return new CapturedRow(table, tableName, op,
                offset instanceof Number n ? n.longValue() : null,
                json == null ? null : json.toString(),
                extension == null ? null : extension.toString(),
                fqn == null ? null : fqn.toString(),
                logPosition(source),
                commit instanceof Number n ? n.longValue() : null,
                capture instanceof Number n ? n.longValue() : System.currentTimeMillis());
    }

    /** Postgres: the LSN as {@code X/X}; MySQL/MariaDB: {@code file:pos:row}. */
    static String logPosition(Struct source) {
        Object lsn = field(source, "lsn");
        if (lsn instanceof Number n) {
            long value = n.longValue();
            return Long.toHexString(value >>> 32).toUpperCase(Locale.ROOT) + "/"
                    + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase(Locale.ROOT);
        }
        Object file = field(source, "file");
        if (file != null) {
            Object row = field(source, "row");
            return file + ":" + field(source, "pos") + ":" + (row == null ? 0 : row);
        }
        return null;
    }

    private static Object field(Struct struct, String name) {
        return struct != null && struct.schema().field(name) != null ? struct.get(name) : null;
    }

    private static String stringField(Struct struct, String name) {
        Object value = field(struct, name);
        return value == null ? null : value.toString();
    }

    /** A column by case-insensitive name (Postgres folds unquoted identifiers to lower case). */
    private static Object column(Struct image, String name) {
        if (image == null) {
            return null;
        }
        for (Field f : image.schema().fields()) {
            if (f.name().equalsIgnoreCase(name)) {
                return image.get(f);
            }
        }
        return null;
    }

    @Override
    public ConfigDef config() {
        ConfigDef def = new ConfigDef();
        for (Setting<?> setting : TransformSettings.SETTINGS) {
            def.define(setting.key(), ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, setting.doc());
        }
        def.define(VALUE_FORMAT, ConfigDef.Type.STRING, FORMAT.defaultOrFail(), ConfigDef.Importance.LOW, FORMAT.doc());
        return def;
    }

    @Override
    public void close() {
        // nothing held
    }
}
