package io.changestream.cdc.transform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SourcePosition;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;

/**
 * Turns one {@link CapturedRow} into a {@link Mapping}: a ChangeEvent envelope for {@code changes}, a
 * PipelineRunStatus for {@code pipeline-status}, a CdcDeadLetter for {@code cdc-dlq}, or a counted skip. Applies the
 * size bound, masking and filters. Pure and immutable; any thread (Connect calls SMTs from several task threads).
 */
public final class RowMapper {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RowMapper.class);

    private final TransformSettings settings;
    private final ObjectMapper mapper = Json.mapper();
    private final JsonMasker masker;
    private final String changesTopic;
    private final String statusTopic;
    private final String dlqTopic;

    public RowMapper(TransformSettings settings) {
        this.settings = settings;
        this.masker = new JsonMasker(mapper, settings.maskPointers(), settings.maskValue());
        TopicCatalog catalog = settings.catalog();
        this.changesTopic = catalog.changes().name();
        this.statusTopic = catalog.pipelineStatus().name();
        this.dlqTopic = catalog.cdcDlq().name();
    }

    /** True when rows of this (unqualified) table are mapped; other tables pass through the SMT untouched. */
    public boolean captures(String tableName) {
        return settings.changeEventTable().equalsIgnoreCase(tableName)
                || settings.pipelineStatusTable().equalsIgnoreCase(tableName);
    }

    public Mapping map(CapturedRow row) {
        if (settings.changeEventTable().equalsIgnoreCase(row.tableName())) {
            return mapChangeEvent(row);
        }
        return mapPipelineStatus(row);
    }

    /**
     * The dead letter of a row whose mapping threw unexpectedly: the reason names the exception type and where it was
     * thrown (never its message, which may quote the row). Logged once per row with its coordinates; counted as dead-lettered by the sink.
     */
    public Mapping failed(CapturedRow row, RuntimeException e) {
        StackTraceElement[] trace = e.getStackTrace();
        // the type and where it was thrown, never the message: messages may quote row content
        String reason = "mapping failed: " + e.getClass().getName()
                + (trace.length == 0 ? "" : " at " + trace[0].getClassName() + "." + trace[0].getMethodName() + ":"
                        + trace[0].getLineNumber());
        LOG.error("row of {} at {} (offset column {}) could not be mapped; dead-lettered: {}", row.table(),
                row.logPosition(), row.sourceOffset(), reason);
        return deadLetter(row, reason, null);
    }

    private Mapping mapChangeEvent(CapturedRow row) {
        if (!row.isInsert()) {
            return Mapping.skipped(RowOutcome.IGNORED,
                    "change_event " + operationName(row) + " (retention) is not an event");
        }
        ObjectNode json;
        try {
            json = parseObject(row);
        } catch (Rejected e) {
            return deadLetter(row, e.getMessage());
        }
        masker.maskEvent(json);
        if (!json.path("timestamp").isIntegralNumber()) {
            return deadLetter(row, "required field timestamp is missing or not an integer", json);
        }
        // the entity (most of a row) is kept as the parsed tree, not copied: only the rest is bound to the record
        JsonNode entity = json.remove("entity");
        ChangeEvent event;
        try {
            event = mapper.treeToValue(json, ChangeEvent.class);
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            restore(json, entity);
            return deadLetter(row, "not a ChangeEvent: " + firstLine(e), json);
        }
        String skip = filterReason(event);
        if (skip != null) {
            return Mapping.skipped(RowOutcome.FILTERED, skip);
        }
        ChangeEvent envelope = new ChangeEvent(event.id(), event.eventType(), event.entityType(), event.entityId(),
                event.domains(), event.entityFullyQualifiedName(), event.previousVersion(), event.currentVersion(),
                event.userName(), event.impersonatedBy(), event.timestamp(), event.changeDescription(),
                entity, new SourcePosition(row.table(),
                        row.sourceOffset(), row.logPosition(), row.commitTimeMs(), row.captureTimeMs()),
                event.additionalProperties());
        byte[] value = write(envelope);
        if (value.length > settings.maxRowBytes()) {
            // escaping (an entity kept as a JSON-coded string) can make the envelope larger than the row
            restore(json, entity);
            return deadLetter(row, "envelope is " + value.length + " bytes, above max.row.bytes="
                    + settings.maxRowBytes(), json);
        }
        return new Mapping(RowOutcome.PRODUCED, changesTopic, TopicKeys.change(envelope), value, null);
    }

    private Mapping mapPipelineStatus(CapturedRow row) {
        if (!settings.pipelineStatusExtension().equals(row.extension())) {
            return Mapping.skipped(RowOutcome.IGNORED, "extension is not " + settings.pipelineStatusExtension());
        }
        if ("d".equals(row.operation())) {
            return Mapping.skipped(RowOutcome.IGNORED, "deleted status rows are not status changes");
        }
        ObjectNode json;
        try {
            json = parseObject(row);
        } catch (Rejected e) {
            return deadLetter(row, e.getMessage());
        }
        try {
            String runId = requiredText(json, "runId");
            PipelineState state = mapper.treeToValue(json.get("pipelineState"), PipelineState.class);
            if (state == null) {
                throw new Rejected("required field pipelineState is missing");
            }
            if (!json.path("timestamp").isIntegralNumber()) {
                throw new Rejected("required field timestamp is missing or not an integer");
            }
            String fqn = pipelineFqn(json, row);
            PipelineRunStatus status = new PipelineRunStatus(fqn, runId, state, optionalLong(json, "startDate"),
                    optionalLong(json, "endDate"), json.get("timestamp").asLong());
            return new Mapping(RowOutcome.PRODUCED, statusTopic, status.key(), write(status), null);
        } catch (Rejected e) {
            return deadLetter(row, e.getMessage(), json);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return deadLetter(row, "not a pipeline status: " + firstLine(e), json);
        }
    }

    private String pipelineFqn(ObjectNode json, CapturedRow row) {
        for (String field : settings.pipelineFqnFields()) {
            if (json.path(field).isTextual() && !json.get(field).asText().isBlank()) {
                return json.get(field).asText();
            }
        }
        if (row.fqnColumn() != null && !row.fqnColumn().isBlank()) {
            return row.fqnColumn();
        }
        throw new Rejected("no pipeline FQN in " + settings.pipelineFqnFields() + " nor in the row");
    }

    private String filterReason(ChangeEvent event) {
        if (!settings.includeEntityTypes().isEmpty() && !settings.includeEntityTypes().contains(event.entityType())) {
            return "entity type not included";
        }
        if (settings.excludeEntityTypes().contains(event.entityType())) {
            return "entity type excluded";
        }
        if (!settings.includeEventTypes().isEmpty() && !settings.includeEventTypes().contains(event.eventType())) {
            return "event type not included";
        }
        if (settings.excludeEventTypes().contains(event.eventType())) {
            return "event type excluded";
        }
        return null;
    }

    private ObjectNode parseObject(CapturedRow row) {
        if (row.json() == null || row.json().isBlank()) {
            throw new Rejected("json column is null or blank");
        }
        int bytes = utf8Length(row.json());
        if (bytes > settings.maxRowBytes()) {
            throw new Rejected("json column is " + bytes + " bytes, above max.row.bytes=" + settings.maxRowBytes());
        }
        JsonNode node;
        try {
            node = mapper.readTree(row.json());
        } catch (JsonProcessingException e) {
            // the parser's own message quotes row content, which may be a secret: keep only the location
            var at = e.getLocation();
            throw new Rejected("json column is not JSON" + (at == null ? ""
                    : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        }
        if (!(node instanceof ObjectNode object)) {
            throw new Rejected("json column is a JSON "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ", not an object");
        }
        return object;
    }

    private Mapping deadLetter(CapturedRow row, String reason) {
        ObjectNode parsed = null;
        if (row.json() != null && !masker.isEmpty()) {
            try {
                JsonNode node = mapper.readTree(row.json());
                parsed = node instanceof ObjectNode object ? object : null;
            } catch (JsonProcessingException e) {
                parsed = null;
            }
        }
        return deadLetter(row, reason, parsed);
    }

    /** A dead letter; {@code parsed} (when given) is the row JSON, masked before it is kept. */
    private Mapping deadLetter(CapturedRow row, String reason, ObjectNode parsed) {
        String raw;
        if (parsed != null) {
            masker.maskEvent(parsed);
            raw = parsed.toString();
        } else if (row.json() == null) {
            raw = "null";
        } else if (!masker.isEmpty()) {
            raw = "<withheld: " + utf8Length(row.json()) + " bytes that could not be parsed for masking>";
        } else {
            raw = row.json();
        }
        CdcDeadLetter letter = new CdcDeadLetter(row.table(), row.logPosition(), row.sourceOffset(),
                truncate(raw, settings.dlqRawMaxBytes()), reason, row.captureTimeMs());
        return new Mapping(RowOutcome.DEAD_LETTERED, dlqTopic, letter.key(), write(letter), reason);
    }

    /** Puts a removed entity back, so a dead letter keeps the whole (masked) row. */
    private static void restore(ObjectNode json, JsonNode entity) {
        if (entity != null) {
            json.set("entity", entity);
        }
    }

    /** The value's JSON as UTF-8: written once, straight to the bytes the producer sends. */
    private byte[] write(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not serialize a " + value.getClass().getSimpleName(), e);
        }
    }

    private static String requiredText(ObjectNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new Rejected("required field " + field + " is missing or not text");
        }
        return value.asText();
    }

    private static Long optionalLong(ObjectNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber()) {
            throw new Rejected("field " + field + " is not an integer");
        }
        return value.asLong();
    }

    private static String operationName(CapturedRow row) {
        return "d".equals(row.operation()) ? "delete" : "update";
    }

    static int utf8Length(String text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static String truncate(String text, int maxBytes) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return text;
        }
        String head = new String(bytes, 0, maxBytes, StandardCharsets.UTF_8);
        if (!head.isEmpty() && head.charAt(head.length() - 1) == '\uFFFD') {
            head = head.substring(0, head.length() - 1);
        }
        return head + "…[truncated " + (bytes.length - maxBytes) + " bytes]";
    }

    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        String line = newline < 0 ? message : message.substring(0, newline);
        return line.length() > 200 ? line.substring(0, 200) : line;
    }

    /** A row that cannot become an envelope; the message is the dead letter's reason. */
    private static final class Rejected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rejected(String reason) {
            super(reason, null, false, false);
        }
    }
}
