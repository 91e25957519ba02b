package io.changestream.cdc.transform;

import com.fasterxml.jackson.core.JsonPointer;
import io.changestream.cdc.CdcException;
import io.changestream.topics.TopicCatalog;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the row → envelope mapping, shared by the embedded connector and the Kafka Connect SMT (where they are
 * the {@code transforms.<name>.*} keys). Validated here; immutable.
 *
 * <table>
 * <caption>Settings (key, default)</caption>
 * <tr><td>topic.namespace</td><td>cs.</td><td>prefix of changestream's topics</td></tr>
 * <tr><td>change.event.table</td><td>change_event</td><td>table whose inserts become ChangeEvents</td></tr>
 * <tr><td>pipeline.status.table</td><td>entity_extension_time_series</td><td>table of pipeline run status rows</td></tr>
 * <tr><td>pipeline.status.extension</td><td>ingestionPipeline.pipelineStatus</td><td>only rows of this extension</td></tr>
 * <tr><td>pipeline.fqn.fields</td><td>pipelineFqn,ingestionPipelineFqn,pipelineFullyQualifiedName</td>
 *     <td>status JSON fields that may carry the pipeline FQN; else the row's entityFQN or entityFQNHash column</td></tr>
 * <tr><td>filter.include.entity.types</td><td>(all)</td><td>comma list</td></tr>
 * <tr><td>filter.exclude.entity.types</td><td>(none)</td><td>comma list</td></tr>
 * <tr><td>filter.include.event.types</td><td>(all)</td><td>comma list</td></tr>
 * <tr><td>filter.exclude.event.types</td><td>(none)</td><td>comma list</td></tr>
 * <tr><td>mask.pointers</td><td>(none)</td><td>JSON pointers into the entity, e.g. /connection/config/password</td></tr>
 * <tr><td>mask.value</td><td>******</td><td>replacement text</td></tr>
 * <tr><td>max.row.bytes</td><td>524288</td><td>larger json columns are dead-lettered</td></tr>
 * <tr><td>dlq.raw.max.bytes</td><td>min(65536, max.row.bytes)</td><td>raw row kept in a dead letter, truncated beyond</td></tr>
 * <tr><td>skipped.records</td><td>drop</td><td>drop: filtered/ignored rows vanish (Connect); mark: they pass with a
 *     header so the embedded connector can count and commit them</td></tr>
 * </table>
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

    public static final String TOPIC_NAMESPACE = "topic.namespace";
    public static final String CHANGE_EVENT_TABLE = "change.event.table";
    public static final String PIPELINE_STATUS_TABLE = "pipeline.status.table";
    public static final String PIPELINE_STATUS_EXTENSION = "pipeline.status.extension";
    public static final String PIPELINE_FQN_FIELDS = "pipeline.fqn.fields";
    public static final String INCLUDE_ENTITY_TYPES = "filter.include.entity.types";
    public static final String EXCLUDE_ENTITY_TYPES = "filter.exclude.entity.types";
    public static final String INCLUDE_EVENT_TYPES = "filter.include.event.types";
    public static final String EXCLUDE_EVENT_TYPES = "filter.exclude.event.types";
    public static final String MASK_POINTERS = "mask.pointers";
    public static final String MASK_VALUE = "mask.value";
    public static final String MAX_ROW_BYTES = "max.row.bytes";
    public static final String DLQ_RAW_MAX_BYTES = "dlq.raw.max.bytes";
    public static final String SKIPPED_RECORDS = "skipped.records";

    /** Every key above, for copying them into an SMT config. */
    public static final List<String> KEYS = List.of(TOPIC_NAMESPACE, CHANGE_EVENT_TABLE, PIPELINE_STATUS_TABLE,
            PIPELINE_STATUS_EXTENSION, PIPELINE_FQN_FIELDS, INCLUDE_ENTITY_TYPES, EXCLUDE_ENTITY_TYPES,
            INCLUDE_EVENT_TYPES, EXCLUDE_EVENT_TYPES, MASK_POINTERS, MASK_VALUE, MAX_ROW_BYTES, DLQ_RAW_MAX_BYTES,
            SKIPPED_RECORDS);

    public TransformSettings {
        if (topicNamespace == null) {
            throw new CdcException("setting " + TOPIC_NAMESPACE + " must not be null (empty means no prefix)");
        }
        requireText(changeEventTable, CHANGE_EVENT_TABLE);
        requireText(pipelineStatusTable, PIPELINE_STATUS_TABLE);
        requireText(pipelineStatusExtension, PIPELINE_STATUS_EXTENSION);
        requireText(maskValue, MASK_VALUE);
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
                throw new CdcException("setting " + MASK_POINTERS + ": '" + pointer + "' is not a JSON pointer "
                        + "into the entity (" + e.getMessage() + ")");
            }
        }
        if (maxRowBytes < 1024) {
            throw new CdcException("setting " + MAX_ROW_BYTES + " must be >= 1024, was " + maxRowBytes);
        }
        if (dlqRawMaxBytes < 256 || dlqRawMaxBytes > maxRowBytes) {
            throw new CdcException("setting " + DLQ_RAW_MAX_BYTES + " must be in [256, " + MAX_ROW_BYTES + "], was "
                    + dlqRawMaxBytes);
        }
        try {
            new TopicCatalog(topicNamespace);
        } catch (RuntimeException e) {
            throw new CdcException("setting " + TOPIC_NAMESPACE + ": " + e.getMessage(), e);
        }
    }

    /** Reads the settings above from flat keys (missing keys take their defaults). */
    public static TransformSettings from(Settings s) {
        int maxRowBytes = s.integer(MAX_ROW_BYTES, 524_288, 0, Integer.MAX_VALUE);
        return new TransformSettings(
                s.string(TOPIC_NAMESPACE, TopicCatalog.DEFAULT_NAMESPACE),
                s.string(CHANGE_EVENT_TABLE, "change_event"),
                s.string(PIPELINE_STATUS_TABLE, "entity_extension_time_series"),
                s.string(PIPELINE_STATUS_EXTENSION, "ingestionPipeline.pipelineStatus"),
                s.list(PIPELINE_FQN_FIELDS, List.of("pipelineFqn", "ingestionPipelineFqn", "pipelineFullyQualifiedName")),
                Set.copyOf(s.list(INCLUDE_ENTITY_TYPES)),
                Set.copyOf(s.list(EXCLUDE_ENTITY_TYPES)),
                Set.copyOf(s.list(INCLUDE_EVENT_TYPES)),
                Set.copyOf(s.list(EXCLUDE_EVENT_TYPES)),
                s.list(MASK_POINTERS),
                s.string(MASK_VALUE, "******"),
                maxRowBytes,
                s.integer(DLQ_RAW_MAX_BYTES, Math.min(65_536, maxRowBytes), 0, Integer.MAX_VALUE),
                "mark".equals(s.oneOf(SKIPPED_RECORDS, "drop", "drop", "mark")));
    }

    /** Defaults for everything (Connect form: skipped rows are dropped). */
    public static TransformSettings defaults() {
        return from(new Settings(Map.of()));
    }

    /** This mapping as flat keys, the inverse of {@link #from(Settings)}. */
    public Map<String, String> toMap() {
        return Map.ofEntries(
                Map.entry(TOPIC_NAMESPACE, topicNamespace),
                Map.entry(CHANGE_EVENT_TABLE, changeEventTable),
                Map.entry(PIPELINE_STATUS_TABLE, pipelineStatusTable),
                Map.entry(PIPELINE_STATUS_EXTENSION, pipelineStatusExtension),
                Map.entry(PIPELINE_FQN_FIELDS, String.join(",", pipelineFqnFields)),
                Map.entry(INCLUDE_ENTITY_TYPES, String.join(",", includeEntityTypes)),
                Map.entry(EXCLUDE_ENTITY_TYPES, String.join(",", excludeEntityTypes)),
                Map.entry(INCLUDE_EVENT_TYPES, String.join(",", includeEventTypes)),
                Map.entry(EXCLUDE_EVENT_TYPES, String.join(",", excludeEventTypes)),
                Map.entry(MASK_POINTERS, String.join(",", maskPointers)),
                Map.entry(MASK_VALUE, maskValue),
                Map.entry(MAX_ROW_BYTES, Integer.toString(maxRowBytes)),
                Map.entry(DLQ_RAW_MAX_BYTES, Integer.toString(dlqRawMaxBytes)),
                Map.entry(SKIPPED_RECORDS, markSkipped ? "mark" : "drop"));
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

    private static void requireText(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new CdcException("setting " + key + " must not be blank");
        }
    }
}
