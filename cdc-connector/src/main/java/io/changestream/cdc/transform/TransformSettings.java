package io.changestream.cdc.transform;

import com.fasterxml.jackson.core.JsonPointer;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingException;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.TopicCatalog;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the row → envelope mapping, shared by the embedded connector and the Kafka Connect SMT (where they are
 * the {@code transforms.<name>.*} keys). Each is declared once below ({@link #SETTINGS}: key, default, bounds,
 * meaning; the table in cdc-connector/README.md is checked against them); the record validates its components with
 * them, naming the key ({@link SettingException}). Immutable.
 *
 * @param topicNamespace          {@link #TOPIC_NAMESPACE}
 * @param changeEventTable        {@link #CHANGE_EVENT_TABLE}
 * @param pipelineStatusTable     {@link #PIPELINE_STATUS_TABLE}
 * @param pipelineStatusExtension {@link #PIPELINE_STATUS_EXTENSION}
 * @param pipelineFqnFields       {@link #PIPELINE_FQN_FIELDS}
 * @param includeEntityTypes      {@link #INCLUDE_ENTITY_TYPES}
 * @param excludeEntityTypes      {@link #EXCLUDE_ENTITY_TYPES}
 * @param includeEventTypes       {@link #INCLUDE_EVENT_TYPES}
 * @param excludeEventTypes       {@link #EXCLUDE_EVENT_TYPES}
 * @param maskPointers            {@link #MASK_POINTERS}
 * @param maskValue               {@link #MASK_VALUE}
 * @param maxRowBytes             {@link #MAX_ROW_BYTES}
 * @param dlqRawMaxBytes          {@link #DLQ_RAW_MAX_BYTES}; at most {@code maxRowBytes}
 * @param markSkipped             {@link #SKIPPED_RECORDS} is {@code mark}
 */
public record TransformSettings(
        String topicNamespace,
        String changeEventTable,
        String pipelineStatusTable,
        String pipelineStatusExtension,
        List<String> pipelineFqnFields,
        Set<String> includeEntityTypes,
        Set<String> excludeEntityTypes,
        Set<String> includeEventTypes,
        Set<String> excludeEventTypes,
        List<String> maskPointers,
        String maskValue,
        int maxRowBytes,
        int dlqRawMaxBytes,
        boolean markSkipped) {

    public static final Setting<String> TOPIC_NAMESPACE = Setting.string("topic.namespace")
            .defaultsTo(TopicCatalog.DEFAULT_NAMESPACE).doc("topic name prefix (TopicCatalog)");
    public static final Setting<String> CHANGE_EVENT_TABLE = Setting.string("change.event.table").notBlank()
            .defaultsTo("change_event").doc("table whose inserts become ChangeEvents");
    public static final Setting<String> PIPELINE_STATUS_TABLE = Setting.string("pipeline.status.table").notBlank()
            .defaultsTo("entity_extension_time_series").doc("table of pipeline run status rows");
    public static final Setting<String> PIPELINE_STATUS_EXTENSION = Setting.string("pipeline.status.extension")
            .notBlank()
            .defaultsTo("ingestionPipeline.pipelineStatus").doc("only status rows of this extension");
    public static final Setting<List<String>> PIPELINE_FQN_FIELDS = Setting.list("pipeline.fqn.fields")
            .defaultsTo(List.of("pipelineFqn", "ingestionPipelineFqn", "pipelineFullyQualifiedName"))
            .doc("JSON fields with the pipeline FQN; else the row's entityFQN/entityFQNHash column");
    public static final Setting<List<String>> INCLUDE_ENTITY_TYPES = Setting.list("filter.include.entity.types")
            .defaultsTo(List.of()).doc("entity types to capture, comma-separated; empty for all");
    public static final Setting<List<String>> EXCLUDE_ENTITY_TYPES = Setting.list("filter.exclude.entity.types")
            .defaultsTo(List.of()).doc("entity types to leave out, comma-separated");
    public static final Setting<List<String>> INCLUDE_EVENT_TYPES = Setting.list("filter.include.event.types")
            .defaultsTo(List.of()).doc("event types to capture, comma-separated; empty for all");
    public static final Setting<List<String>> EXCLUDE_EVENT_TYPES = Setting.list("filter.exclude.event.types")
            .defaultsTo(List.of()).doc("event types to leave out, comma-separated");
    public static final Setting<List<String>> MASK_POINTERS = Setting.list("mask.pointers").defaultsTo(List.of())
            .doc("JSON pointers into the entity whose values are masked, e.g. /connection/config/password (also "
                    + "matching changeDescription values)");
    /** The replacement of masked entity values: a data mask, not the {@code SecretKeys} mask of a config. */
    public static final Setting<String> MASK_VALUE = Setting.string("mask.value").notBlank().defaultsTo("******")
            .doc("replacement text of masked values");
    public static final Setting<Integer> MAX_ROW_BYTES = Setting.integer("max.row.bytes").defaultsTo(524_288)
            .atLeast(1024).doc("larger json columns (or envelopes) are dead-lettered");
    public static final Setting<Integer> DLQ_RAW_MAX_BYTES = Setting.integer("dlq.raw.max.bytes").defaultsTo(65_536)
            .atLeast(256).doc("raw row kept in a dead letter, truncated beyond; max.row.bytes if that is smaller");
    public static final Setting<String> SKIPPED_RECORDS = Setting.oneOf("skipped.records", "drop", "mark")
            .defaultsTo("drop").doc("drop: filtered and ignored rows vanish (Connect); mark: they pass with a header "
                    + "so the embedded connector can count and commit them");

    /** Every setting above, in the README's order (also the SMT's {@code config()}). */
    public static final List<Setting<?>> SETTINGS = List.of(TOPIC_NAMESPACE, CHANGE_EVENT_TABLE, PIPELINE_STATUS_TABLE,
            PIPELINE_STATUS_EXTENSION, PIPELINE_FQN_FIELDS, INCLUDE_ENTITY_TYPES, EXCLUDE_ENTITY_TYPES,
            INCLUDE_EVENT_TYPES, EXCLUDE_EVENT_TYPES, MASK_POINTERS, MASK_VALUE, MAX_ROW_BYTES, DLQ_RAW_MAX_BYTES,
            SKIPPED_RECORDS);

    public TransformSettings {
        TOPIC_NAMESPACE.check(topicNamespace);
        CHANGE_EVENT_TABLE.check(changeEventTable);
        PIPELINE_STATUS_TABLE.check(pipelineStatusTable);
        PIPELINE_STATUS_EXTENSION.check(pipelineStatusExtension);
        MASK_VALUE.check(maskValue);
        pipelineFqnFields = List.copyOf(pipelineFqnFields);
        includeEntityTypes = Set.copyOf(includeEntityTypes);
        excludeEntityTypes = Set.copyOf(excludeEntityTypes);
        includeEventTypes = Set.copyOf(includeEventTypes);
        excludeEventTypes = Set.copyOf(excludeEventTypes);
        maskPointers = List.copyOf(maskPointers);
        for (String pointer : maskPointers) {
            try {
                if (JsonPointer.compile(pointer).matches()) {
                    throw new IllegalArgumentException("the empty pointer would mask the whole entity");
                }
            } catch (IllegalArgumentException e) {
                throw new SettingException(MASK_POINTERS.key(), MASK_POINTERS.key() + ": '" + pointer
                        + "' is not a JSON pointer into the entity (" + e.getMessage() + ")");
            }
        }
        MAX_ROW_BYTES.check(maxRowBytes);
        DLQ_RAW_MAX_BYTES.check(dlqRawMaxBytes);
        DLQ_RAW_MAX_BYTES.require(dlqRawMaxBytes <= maxRowBytes, "must be at most "
                + MAX_ROW_BYTES.key() + " (" + maxRowBytes + "), was " + dlqRawMaxBytes);
        try {
            new TopicCatalog(topicNamespace);
        } catch (RuntimeException e) {
            throw new SettingException(TOPIC_NAMESPACE.key(), TOPIC_NAMESPACE.key() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the settings above (missing keys take their defaults; {@code dlq.raw.max.bytes} defaults to
     * {@code max.row.bytes} when that is smaller). A bad value fails with a {@link SettingException} naming the key.
     */
    public static TransformSettings from(SettingsReader s) {
        int maxRowBytes = s.get(MAX_ROW_BYTES);
        return new TransformSettings(
                s.get(TOPIC_NAMESPACE),
                s.get(CHANGE_EVENT_TABLE),
                s.get(PIPELINE_STATUS_TABLE),
                s.get(PIPELINE_STATUS_EXTENSION),
                s.get(PIPELINE_FQN_FIELDS),
                Set.copyOf(s.get(INCLUDE_ENTITY_TYPES)),
                Set.copyOf(s.get(EXCLUDE_ENTITY_TYPES)),
                Set.copyOf(s.get(INCLUDE_EVENT_TYPES)),
                Set.copyOf(s.get(EXCLUDE_EVENT_TYPES)),
                s.get(MASK_POINTERS),
                s.get(MASK_VALUE),
                maxRowBytes,
                s.find(DLQ_RAW_MAX_BYTES).orElse(Math.min(DLQ_RAW_MAX_BYTES.defaultOrFail(), maxRowBytes)),
                "mark".equals(s.get(SKIPPED_RECORDS)));
    }

    /** Defaults for everything (Connect form: skipped rows are dropped). */
    public static TransformSettings defaults() {
        return from(SettingsReader.of(Map.of()));
    }

    /** This mapping as flat keys, the inverse of {@link #from(SettingsReader)}. */
    public Map<String, String> toMap() {
        return Map.ofEntries(
                Map.entry(TOPIC_NAMESPACE.key(), topicNamespace),
                Map.entry(CHANGE_EVENT_TABLE.key(), changeEventTable),
                Map.entry(PIPELINE_STATUS_TABLE.key(), pipelineStatusTable),
                Map.entry(PIPELINE_STATUS_EXTENSION.key(), pipelineStatusExtension),
                Map.entry(PIPELINE_FQN_FIELDS.key(), String.join(",", pipelineFqnFields)),
                Map.entry(INCLUDE_ENTITY_TYPES.key(), String.join(",", includeEntityTypes)),
                Map.entry(EXCLUDE_ENTITY_TYPES.key(), String.join(",", excludeEntityTypes)),
                Map.entry(INCLUDE_EVENT_TYPES.key(), String.join(",", includeEventTypes)),
                Map.entry(EXCLUDE_EVENT_TYPES.key(), String.join(",", excludeEventTypes)),
                Map.entry(MASK_POINTERS.key(), String.join(",", maskPointers)),
                Map.entry(MASK_VALUE.key(), maskValue),
                Map.entry(MAX_ROW_BYTES.key(), Integer.toString(maxRowBytes)),
                Map.entry(DLQ_RAW_MAX_BYTES.key(), Integer.toString(dlqRawMaxBytes)),
                Map.entry(SKIPPED_RECORDS.key(), markSkipped ? "mark" : "drop"));
    }

    /** The same settings with skipped rows marked instead of dropped (the embedded connector's form). */
    public TransformSettings markingSkipped() {
        return new TransformSettings(topicNamespace, changeEventTable, pipelineStatusTable, pipelineStatusExtension,
                pipelineFqnFields, includeEntityTypes, excludeEntityTypes, includeEventTypes, excludeEventTypes,
                maskPointers, maskValue, maxRowBytes, dlqRawMaxBytes, true);
    }

    /** The topic catalog these settings name topics from. */
    public TopicCatalog catalog() {
        return new TopicCatalog(topicNamespace);
    }
}
