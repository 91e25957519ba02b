package io.changestream.cdc.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.cdc.CdcException;
import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Json;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class ChangeEventTransformTest {

    private static final String ENTITY_ID = "6f1c2b9e-7d1a-4a52-9b59-3f0c8d3c1a11";
    private static final long LSN = 0x1_6B37_48L;

    static String event(String id, String eventType, String entityType, String extra) {
        return "{\"id\":\"" + id + "\",\"eventType\":\"" + eventType + "\",\"entityType\":\"" + entityType
                + "\",\"entityId\":\"" + ENTITY_ID + "\",\"entityFullyQualifiedName\":\"svc.db.schema.t\","
                + "\"userName\":\"admin\",\"timestamp\":1700000000000,\"previousVersion\":0.1,\"currentVersion\":0.2"
                + extra + "}";
    }

    private static ChangeEventTransform<SourceRecord> transform(Map<String, String> settings) {
        ChangeEventTransform<SourceRecord> smt = new ChangeEventTransform<>();
        smt.configure(settings);
        return smt;
    }

    private static String header(SourceRecord record, String name) {
        return record.headers().lastWithName(name).value().toString();
    }

    @Test
    void insertOfChangeEventBecomesEnvelopeKeyedByEntityId() throws Exception {
        SourceRecord in = DebeziumRecords.pgChangeEvent("c", 42, event("e-1", "entityUpdated", "table",
                ",\"changeDescription\":{\"fieldsUpdated\":[{\"name\":\"description\",\"oldValue\":\"a\","
                        + "\"newValue\":\"b\"}],\"previousVersion\":0.1}"), LSN, 1_700_000_000_123L);
        SourceRecord out = transform(Map.of()).apply(in);

        assertEquals("cs.changes", out.topic());
        assertEquals(ENTITY_ID, out.key());
        assertEquals(Schema.STRING_SCHEMA, out.valueSchema());
        assertEquals(1_700_000_000_123L, out.timestamp());
        assertEquals("produced", header(out, ChangeEventTransform.OUTCOME_HEADER));
        assertEquals("public.change_event", header(out, ChangeEventTransform.TABLE_HEADER));
        ChangeEvent event = Json.mapper().readValue((String) out.value(), ChangeEvent.class);
        assertEquals("e-1", event.id());
        assertEquals("entityUpdated", event.eventType());
        assertEquals("table", event.entityType());
        assertEquals("svc.db.schema.t", event.entityFullyQualifiedName());
        assertEquals(0.2, event.currentVersion());
        assertEquals("description", event.changeDescription().fieldsUpdated().get(0).name());
        assertEquals("public.change_event", event.source().table());
        assertEquals(42L, event.source().sourceOffset());
        assertEquals("0/16B3748", event.source().logPosition());
        assertEquals(1_700_000_000_123L, event.source().commitTimeMs());
        assertEquals(1_700_000_000_128L, event.source().captureTimeMs());
        // the source offset survives for the engine's offset commit
        assertEquals(in.sourceOffset(), out.sourceOffset());
    }

    @Test
    void mariaDbPositionIsFilePosRow() throws Exception {
        SourceRecord out = transform(Map.of()).apply(DebeziumRecords.mariaChangeEvent(7,
                event("e-2", "entityCreated", "table", ""), "binlog.000003", 1234, 2, 5_000));
        ChangeEvent event = Json.mapper().readValue((String) out.value(), ChangeEvent.class);
        assertEquals("platform.change_event", event.source().table());
        assertEquals("binlog.000003:1234:2", event.source().logPosition());
    }

    @Test
    void updatesAndDeletesOfChangeEventAreIgnoredMarkedOrDropped() {
        String json = event("e-3", "entityCreated", "table", "");
        ChangeEventTransform<SourceRecord> marking = transform(Map.of("skipped.records", "mark"));
        for (String op : new String[] {"u", "d"}) {
            SourceRecord out = marking.apply(DebeziumRecords.pgChangeEvent(op, 1, json, LSN, 1));
            assertEquals("ignored", header(out, ChangeEventTransform.OUTCOME_HEADER));
            assertNull(out.value());
            assertNull(transform(Map.of()).apply(DebeziumRecords.pgChangeEvent(op, 1, json, LSN, 1)));
        }
    }

    @Test
    void snapshotReadsAreEventsLikeInserts() {
        SourceRecord out = transform(Map.of()).apply(DebeziumRecords.pgChangeEvent("r", 1,
                event("e-4", "entityCreated", "table", ""), LSN, 1));
        assertEquals("cs.changes", out.topic());
    }

    @Test
    void pipelineStatusRowBecomesRunStatusKeyedByFqnAndRunId() throws Exception {
        String json = "{\"runId\":\"run-1\",\"pipelineState\":\"running\",\"startDate\":10,\"timestamp\":11,"
                + "\"pipelineFqn\":\"svc.ingest_meta\"}";
        SourceRecord out = transform(Map.of()).apply(DebeziumRecords.pgStatus("c", "hash",
                "ingestionPipeline.pipelineStatus", json, LSN));
        assertEquals("cs.pipeline-status", out.topic());
        assertEquals("svc.ingest_meta/run-1", out.key());
        PipelineRunStatus status = Json.mapper().readValue((String) out.value(), PipelineRunStatus.class);
        assertEquals(PipelineState.RUNNING, status.state());
        assertEquals(10L, status.startDate());
        assertNull(status.endDate());
        assertEquals(11L, status.timestamp());
    }

    @Test
    void pipelineStatusWithoutFqnInJsonFallsBackToTheRowsFqnColumn() {
        String json = "{\"runId\":\"run-2\",\"pipelineState\":\"success\",\"endDate\":20,\"timestamp\":21}";
        SourceRecord out = transform(Map.of()).apply(DebeziumRecords.pgStatus("u", "fqn-hash-1",
                "ingestionPipeline.pipelineStatus", json, LSN));
        assertEquals("fqn-hash-1/run-2", out.key());
    }

    @Test
    void otherExtensionsAndDeletedStatusRowsAreIgnored() {
        ChangeEventTransform<SourceRecord> marking = transform(Map.of("skipped.records", "mark"));
        String json = "{\"runId\":\"r\",\"pipelineState\":\"running\",\"timestamp\":1}";
        assertEquals("ignored", header(marking.apply(DebeziumRecords.pgStatus("c", "h", "testCase.testCaseResult",
                json, LSN)), ChangeEventTransform.OUTCOME_HEADER));
        assertEquals("ignored", header(marking.apply(DebeziumRecords.pgStatus("d", "h",
                "ingestionPipeline.pipelineStatus", json, LSN)), ChangeEventTransform.OUTCOME_HEADER));
    }

    @Test
    void malformedRowsAreDeadLetteredWithReasonAndRawRow() throws Exception {
        Map<String, String> cases = Map.of(
                "[1,2]", "not an object",
                "{\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"x\",\"timestamp\":1}",
                "id",
                "{\"id\":\"e\",\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"timestamp\":1}",
                "entityId",
                "{\"id\":\"e\",\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"x\","
                        + "\"timestamp\":\"soon\"}", "timestamp",
                "{not json", "not JSON");
        ChangeEventTransform<SourceRecord> smt = transform(Map.of());
        for (Map.Entry<String, String> c : cases.entrySet()) {
            SourceRecord out = smt.apply(DebeziumRecords.pgChangeEvent("c", 9, c.getKey(), LSN, 1));
            assertEquals("cs.cdc-dlq", out.topic(), c.getKey());
            assertEquals("dead_lettered", header(out, ChangeEventTransform.OUTCOME_HEADER));
            CdcDeadLetter letter = Json.mapper().readValue((String) out.value(), CdcDeadLetter.class);
            assertTrue(letter.reason().contains(c.getValue()), letter.reason() + " should mention " + c.getValue());
            assertEquals("public.change_event", letter.sourceTable());
            assertEquals("0/16B3748", letter.logPosition());
            assertEquals(9L, letter.sourceOffset());
            assertEquals("public.change_event/0/16B3748", out.key());
        }
    }

    @Test
    void oversizedRowIsDeadLetteredWithTruncatedRawRow() throws Exception {
        String big = event("e-5", "entityCreated", "table", ",\"entity\":{\"description\":\"" + "x".repeat(5_000)
                + "\"}");
        SourceRecord out = transform(Map.of("max.row.bytes", "2048", "dlq.raw.max.bytes", "512"))
                .apply(DebeziumRecords.pgChangeEvent("c", 1, big, LSN, 1));
        CdcDeadLetter letter = Json.mapper().readValue((String) out.value(), CdcDeadLetter.class);
        assertTrue(letter.reason().contains("max.row.bytes=2048"), letter.reason());
        assertTrue(letter.rawRow().startsWith("{\"id\":\"e-5\""));
        assertTrue(letter.rawRow().contains("[truncated"));
        assertTrue(letter.rawRow().length() < 600);
    }

    @Test
    void maskedValuesNeverReachTheEnvelope() throws Exception {
        String connection = "{\"config\":{\"password\":\"hunter2\",\"username\":\"svc\"}}";
        String entityAsObject = event("e-6", "entityUpdated", "databaseService", ",\"entity\":{\"name\":\"db\","
                + "\"connection\":" + connection + "},\"changeDescription\":{\"fieldsUpdated\":[{\"name\":"
                + "\"connection\",\"oldValue\":" + Json.mapper().writeValueAsString(connection) + ",\"newValue\":"
                + Json.mapper().writeValueAsString(connection) + "}]}");
        String entityAsString = event("e-7", "entityCreated", "databaseService", ",\"entity\":"
                + Json.mapper().writeValueAsString("{\"connection\":" + connection + "}"));
        ChangeEventTransform<SourceRecord> smt = transform(Map.of("mask.pointers", "/connection/config/password"));
        for (String json : new String[] {entityAsObject, entityAsString}) {
            SourceRecord out = smt.apply(DebeziumRecords.pgChangeEvent("c", 1, json, LSN, 1));
            String value = (String) out.value();
            assertEquals("cs.changes", out.topic());
            assertFalse(value.contains("hunter2"), value);
            assertTrue(value.contains("******"), value);
            assertTrue(value.contains("svc"), "other fields stay: " + value);
        }
        JsonNode entity = Json.mapper().readTree((String) smt.apply(
                DebeziumRecords.pgChangeEvent("c", 1, entityAsObject, LSN, 1)).value()).get("entity");
        assertEquals("******", entity.at("/connection/config/password").asText());
    }

    @Test
    void theEmbeddedBytesFormatCarriesTheSameEnvelopeAsUtf8() throws Exception {
        String json = event("e-8", "entityUpdated", "table", ",\"entity\":{\"name\":\"caf\u00e9\",\"columns\":"
                + "[{\"name\":\"c1\",\"dataType\":\"VARCHAR\"}]},\"incrementalChangeDescription\":{\"a\":1}");
        SourceRecord asText = transform(Map.of()).apply(DebeziumRecords.pgChangeEvent("c", 7, json, LSN, 1));
        SourceRecord asBytes = transform(Map.of(ChangeEventTransform.VALUE_FORMAT, "bytes"))
                .apply(DebeziumRecords.pgChangeEvent("c", 7, json, LSN, 1));

        assertEquals(Schema.BYTES_SCHEMA, asBytes.valueSchema());
        assertEquals(asText.value(), new String((byte[]) asBytes.value(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(asText.key(), asBytes.key());
        assertEquals(asText.topic(), asBytes.topic());
        JsonNode value = Json.mapper().readTree((byte[]) asBytes.value());
        assertEquals("café", value.at("/entity/name").asText(), "the entity is carried whole");
        assertEquals("VARCHAR", value.at("/entity/columns/0/dataType").asText());
        assertEquals(1, value.at("/incrementalChangeDescription/a").asInt(), "unmodelled platform fields stay");
        assertEquals(7, value.at("/source/sourceOffset").asLong());
        assertThrows(io.changestream.cdc.CdcException.class,
                () -> transform(Map.of(ChangeEventTransform.VALUE_FORMAT, "avro")));
    }

    @Test
    void maskedValuesNeverReachTheDeadLetterQueue() throws Exception {
        ChangeEventTransform<SourceRecord> smt = transform(Map.of("mask.pointers", "/connection/config/password"));
        String missingId = "{\"eventType\":\"entityCreated\",\"entityType\":\"t\",\"entityId\":\"x\",\"timestamp\":1,"
                + "\"entity\":{\"connection\":{\"config\":{\"password\":\"hunter2\"}}}}";
        String unparsable = "{\"entity\":{\"connection\":{\"config\":{\"password\":\"hunter2\"";
        for (String json : new String[] {missingId, unparsable}) {
            SourceRecord out = smt.apply(DebeziumRecords.pgChangeEvent("c", 1, json, LSN, 1));
            assertEquals("cs.cdc-dlq", out.topic());
            assertFalse(((String) out.value()).contains("hunter2"), (String) out.value());
        }
    }

    @Test
    void filtersByEntityTypeAndEventType() {
        Map<String, String> settings = new HashMap<>();
        settings.put("filter.include.entity.types", "table,topic");
        settings.put("filter.exclude.event.types", "entityNoChange");
        settings.put("skipped.records", "mark");
        ChangeEventTransform<SourceRecord> smt = transform(settings);
        assertEquals("produced", outcome(smt, event("a", "entityCreated", "table", "")));
        assertEquals("filtered", outcome(smt, event("b", "entityCreated", "dashboard", "")));
        assertEquals("filtered", outcome(smt, event("c", "entityNoChange", "table", "")));
        ChangeEventTransform<SourceRecord> excluding = transform(Map.of("filter.exclude.entity.types", "user",
                "filter.include.event.types", "entityDeleted", "skipped.records", "mark"));
        assertEquals("filtered", outcome(excluding, event("d", "entityDeleted", "user", "")));
        assertEquals("filtered", outcome(excluding, event("e", "entityCreated", "table", "")));
        assertEquals("produced", outcome(excluding, event("f", "entityDeleted", "table", "")));
    }

    private static String outcome(ChangeEventTransform<SourceRecord> smt, String json) {
        return header(smt.apply(DebeziumRecords.pgChangeEvent("c", 1, json, LSN, 1)),
                ChangeEventTransform.OUTCOME_HEADER);
    }

    @Test
    void recordsOfOtherTablesHeartbeatsAndTombstonesPassThroughUntouched() {
        ChangeEventTransform<SourceRecord> smt = transform(Map.of());
        Schema heartbeatSchema = SchemaBuilder.struct().name("io.debezium.connector.common.Heartbeat")
                .field("ts_ms", Schema.INT64_SCHEMA).build();
        SourceRecord heartbeat = new SourceRecord(Map.of(), Map.of(), "__debezium-heartbeat.cs", null, null, null,
                heartbeatSchema, new Struct(heartbeatSchema).put("ts_ms", 1L));
        assertSame(heartbeat, smt.apply(heartbeat));
        SourceRecord tombstone = new SourceRecord(Map.of(), Map.of(), "t", null, null, null, null, null);
        assertSame(tombstone, smt.apply(tombstone));
        SourceRecord other = DebeziumRecords.pgChangeEvent("c", 1, "{}", LSN, 1);
        ChangeEventTransform<SourceRecord> elsewhere = transform(Map.of("change.event.table", "other_table"));
        assertSame(other, elsewhere.apply(other));
    }

    @Test
    void badSettingsFailNamingTheSetting() {
        CdcException pointer = assertThrows(CdcException.class,
                () -> transform(Map.of("mask.pointers", "connection/password")));
        assertTrue(pointer.getMessage().contains("mask.pointers"), pointer.getMessage());
        CdcException size = assertThrows(CdcException.class, () -> transform(Map.of("max.row.bytes", "10")));
        assertTrue(size.getMessage().contains("max.row.bytes"), size.getMessage());
        CdcException mode = assertThrows(CdcException.class, () -> transform(Map.of("skipped.records", "keep")));
        assertTrue(mode.getMessage().contains("skipped.records"), mode.getMessage());
        assertNotNull(new ChangeEventTransform<SourceRecord>().config().configKeys().get("mask.pointers"));
    }
}
