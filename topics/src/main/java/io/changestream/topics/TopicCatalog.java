package io.changestream.topics;

import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.DigestRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.PipelineRunStatus;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Every topic of changestream with its layout and policies (DESIGN.md, "Topics"). Immutable: the {@code with…}
 * methods return a new catalog. Safe to share between threads.
 *
 * <table>
 * <caption>Defaults</caption>
 * <tr><th>topic</th><th>partitions</th><th>policy</th><th>retention</th></tr>
 * <tr><td>changes</td><td>12</td><td>delete</td><td>7 d</td></tr>
 * <tr><td>pipeline-status</td><td>6</td><td>compact, min.compaction.lag.ms 7 d</td><td>-</td></tr>
 * <tr><td>subscriptions</td><td>1</td><td>compact</td><td>-</td></tr>
 * <tr><td>alert-ledger</td><td>= changes</td><td>compact,delete</td><td>7 d</td></tr>
 * <tr><td>alert-dlq</td><td>6</td><td>delete</td><td>30 d</td></tr>
 * <tr><td>log-chunks</td><td>12</td><td>delete</td><td>1 d</td></tr>
 * <tr><td>cdc-dlq</td><td>1</td><td>delete</td><td>30 d</td></tr>
 * <tr><td>cdc-offsets</td><td>1</td><td>compact</td><td>-</td></tr>
 * <tr><td>cdc-schema-history</td><td>1</td><td>delete</td><td>forever</td></tr>
 * <tr><td>alert-digest</td><td>6</td><td>delete</td><td>35 d (longer than a monthly digest's window)</td></tr>
 * <tr><td>alert-retry</td><td>12</td><td>delete</td><td>30 d</td></tr>
 * <tr><td>alert-destinations</td><td>1</td><td>compact</td><td>-</td></tr>
 * </table>
 *
 * <p>Replication factor 3 and {@code min.insync.replicas} 2 by default; {@link #withReplicationFactor(short)} with 1
 * for a single-broker dev or test cluster (min ISR follows: {@code min(2, rf - 1)}, at least 1).
 * {@code alert-ledger} always has the partition count of {@code changes}: ledger records are written to the
 * partition of their source event.
 */
public final class TopicCatalog {

    /** The default namespace (topic name prefix). */
    public static final String DEFAULT_NAMESPACE = "cs.";
    /** Default replication factor. */
    public static final short DEFAULT_REPLICATION_FACTOR = 3;
    /** Default partition count of {@code changes} (and so of {@code alert-ledger}). */
    public static final int DEFAULT_CHANGES_PARTITIONS = 12;

    /**
     * Default {@code min.compaction.lag.ms} of {@code pipeline-status}: 7 days, the retention of {@code changes}. A
     * consumer group that lags less than this reads every intermediate run state, not only the latest per run; one
     * that lags more has lost change events too.
     */
    public static final Duration DEFAULT_STATUS_MIN_COMPACTION_LAG = Duration.ofDays(7);

    private static final Duration DAY = Duration.ofDays(1);

    private final String namespace;
    private final short replicationFactor;
    private final Map<CatalogTopic, Integer> partitions;
    private final Duration statusMinCompactionLag;

    /** A catalog with the given namespace (may be empty; e.g. {@code "cs."} or {@code "test-42."}). */
    public TopicCatalog(String namespace) {
        this(namespace, DEFAULT_REPLICATION_FACTOR, defaultPartitions(), DEFAULT_STATUS_MIN_COMPACTION_LAG);
    }

    private TopicCatalog(String namespace, short replicationFactor, Map<CatalogTopic, Integer> partitions,
                         Duration statusMinCompactionLag) {
        Objects.requireNonNull(namespace, "TopicCatalog namespace must not be null (use \"\" for none)");
        if (!namespace.isEmpty() && !namespace.matches("[a-zA-Z0-9._-]+")) {
            throw new TopicsException("TopicCatalog namespace '" + namespace + "' may only contain [a-zA-Z0-9._-]");
        }
        if (replicationFactor < 1) {
            throw new TopicsException("TopicCatalog replicationFactor must be >= 1, was " + replicationFactor);
        }
        Objects.requireNonNull(statusMinCompactionLag, "TopicCatalog statusMinCompactionLag must not be null");
        if (statusMinCompactionLag.isNegative()) {
            throw new TopicsException("TopicCatalog statusMinCompactionLag (min.compaction.lag.ms of pipeline-status) "
                    + "must be >= 0, was " + statusMinCompactionLag);
        }
        this.namespace = namespace;
        this.replicationFactor = replicationFactor;
        this.partitions = partitions;
        this.statusMinCompactionLag = statusMinCompactionLag;
    }

    /** The catalog with namespace {@value #DEFAULT_NAMESPACE} and production defaults. */
    public static TopicCatalog defaults() {
        return new TopicCatalog(DEFAULT_NAMESPACE);
    }

    /** This catalog with every topic at the given replication factor (1 for a single-broker cluster). */
    public TopicCatalog withReplicationFactor(short factor) {
        return new TopicCatalog(namespace, factor, partitions, statusMinCompactionLag);
    }

    /**
     * This catalog with another {@code min.compaction.lag.ms} for {@code pipeline-status} (default
     * {@link #DEFAULT_STATUS_MIN_COMPACTION_LAG}; zero lets the cleaner keep only the latest state of a run at once).
     */
    public TopicCatalog withStatusMinCompactionLag(Duration lag) {
        return new TopicCatalog(namespace, replicationFactor, partitions, lag);
    }

    /** The {@code min.compaction.lag.ms} of {@code pipeline-status}. */
    public Duration statusMinCompactionLag() {
        return statusMinCompactionLag;
    }

    /**
     * This catalog with another partition count for one topic. Setting {@code changes} also sets
     * {@code alert-ledger}; {@code alert-ledger} alone cannot be set, nor can Debezium's single-partition topics.
     */
    public TopicCatalog withPartitions(CatalogTopic topic, int count) {
        if (count < 1) {
            throw new TopicsException("partitions of " + topic.suffix() + " must be >= 1, was " + count);
        }
        if (topic == CatalogTopic.ALERT_LEDGER || topic == CatalogTopic.CDC_OFFSETS
                || topic == CatalogTopic.CDC_SCHEMA_HISTORY || topic == CatalogTopic.SUBSCRIPTIONS
                || topic == CatalogTopic.ALERT_DESTINATIONS) {
            throw new TopicsException("partitions of " + topic.suffix() + " are fixed"
                    + (topic == CatalogTopic.ALERT_LEDGER ? " to those of changes" : " to 1"));
        }
        Map<CatalogTopic, Integer> copy = new EnumMap<>(partitions);
        copy.put(topic, count);
        if (topic == CatalogTopic.CHANGES) {
            copy.put(CatalogTopic.ALERT_LEDGER, count);
        }
        return new TopicCatalog(namespace, replicationFactor, copy, statusMinCompactionLag);
    }

    /** The namespace (topic name prefix). */
    public String namespace() {
        return namespace;
    }

    /** The replication factor of every topic. */
    public short replicationFactor() {
        return replicationFactor;
    }

    /** {@code changes}: ChangeEvent envelopes keyed by entityId; delete, 7 days. */
    public TopicSpec changes() {
        return spec(CatalogTopic.CHANGES);
    }

    /** {@code pipeline-status}: run status keyed by pipelineFqn/runId; compact, {@code min.compaction.lag.ms} 7 d. */
    public TopicSpec pipelineStatus() {
        return spec(CatalogTopic.PIPELINE_STATUS);
    }

    /** {@code subscriptions}: EventSubscription keyed by id; compact, 1 partition. */
    public TopicSpec subscriptions() {
        return spec(CatalogTopic.SUBSCRIPTIONS);
    }

    /** {@code alert-ledger}: DeliveryRecord keyed by groupId/subscriptionId/eventId; compact+delete, 7 days. */
    public TopicSpec alertLedger() {
        return spec(CatalogTopic.ALERT_LEDGER);
    }

    /** {@code alert-dlq}: FailedEvent keyed by subscriptionId/eventId; delete, 30 days. */
    public TopicSpec alertDlq() {
        return spec(CatalogTopic.ALERT_DLQ);
    }

    /** {@code log-chunks}: LogChunk keyed by pipelineFqn/runId; delete, 1 day. */
    public TopicSpec logChunks() {
        return spec(CatalogTopic.LOG_CHUNKS);
    }

    /** {@code cdc-dlq}: CdcDeadLetter keyed by sourceTable/logPosition; delete, 30 days. */
    public TopicSpec cdcDlq() {
        return spec(CatalogTopic.CDC_DLQ);
    }

    /** {@code cdc-offsets}: Debezium's offsets; compact, 1 partition. */
    public TopicSpec cdcOffsets() {
        return spec(CatalogTopic.CDC_OFFSETS);
    }

    /** {@code cdc-schema-history}: Debezium's schema history; delete with infinite retention, 1 partition. */
    public TopicSpec cdcSchemaHistory() {
        return spec(CatalogTopic.CDC_SCHEMA_HISTORY);
    }

    /**
     * {@code alert-digest}: DigestRecord (entries and flush markers of digests and groups) keyed by
     * subscriptionId/group; delete, 35 days.
     */
    public TopicSpec alertDigest() {
        return spec(CatalogTopic.ALERT_DIGEST);
    }

    /**
     * {@code alert-retry}: pairs handed off the commit path (JSON, see alert-consumer's {@code retry} package) keyed
     * by destination, so one destination's pairs keep their order; delete, 30 days (a destination left suspended
     * longer loses its parked pairs to retention).
     */
    public TopicSpec alertRetry() {
        return spec(CatalogTopic.ALERT_RETRY);
    }

    /** {@code alert-destinations}: group-wide destination state keyed by groupId/destination; compact, 1 partition. */
    public TopicSpec alertDestinations() {
        return spec(CatalogTopic.ALERT_DESTINATIONS);
    }

    /** Every topic, in {@link CatalogTopic} order. */
    public List<TopicSpec> all() {
        return Arrays.stream(CatalogTopic.values()).map(this::spec).toList();
    }

    /** The topic with this full name (namespace included), if it is in the catalog. */
    public Optional<TopicSpec> byName(String fullName) {
        return all().stream().filter(spec -> spec.name().equals(fullName)).findFirst();
    }

    /** The spec of one logical topic. */
    public TopicSpec spec(CatalogTopic topic) {
        int count = partitions.get(topic);
        String name = namespace + topic.suffix();
        int minIsr = Math.max(1, Math.min(2, replicationFactor - 1));
        return switch (topic) {
            case CHANGES -> spec(name, count, minIsr, CleanupPolicy.DELETE, Duration.ofDays(7), ChangeEvent.class);
            case PIPELINE_STATUS -> spec(name, count, minIsr, CleanupPolicy.COMPACT, null, PipelineRunStatus.class)
                    .withConfig(TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG,
                            Long.toString(statusMinCompactionLag.toMillis()));
            case SUBSCRIPTIONS -> spec(name, count, minIsr, CleanupPolicy.COMPACT, null, EventSubscription.class);
            case ALERT_LEDGER -> spec(name, count, minIsr, CleanupPolicy.COMPACT_DELETE, Duration.ofDays(7),
                    DeliveryRecord.class);
            case ALERT_DLQ -> spec(name, count, minIsr, CleanupPolicy.DELETE, Duration.ofDays(30), FailedEvent.class);
            case LOG_CHUNKS -> spec(name, count, minIsr, CleanupPolicy.DELETE, DAY, LogChunk.class);
            case CDC_DLQ -> spec(name, count, minIsr, CleanupPolicy.DELETE, Duration.ofDays(30), CdcDeadLetter.class);
            case CDC_OFFSETS -> new TopicSpec(name, count, replicationFactor, CleanupPolicy.COMPACT, null, minIsr,
                    Map.of(), byte[].class, byte[].class);
            case CDC_SCHEMA_HISTORY -> new TopicSpec(name, count, replicationFactor, CleanupPolicy.DELETE,
                    TopicSpec.RETAIN_FOREVER, minIsr, Map.of(TopicConfig.RETENTION_BYTES_CONFIG, "-1"),
                    byte[].class, byte[].class);
            case ALERT_DIGEST -> spec(name, count, minIsr, CleanupPolicy.DELETE, Duration.ofDays(35),
                    DigestRecord.class);
            case ALERT_RETRY -> spec(name, count, minIsr, CleanupPolicy.DELETE, Duration.ofDays(30), String.class);
            case ALERT_DESTINATIONS -> spec(name, count, minIsr, CleanupPolicy.COMPACT, null, String.class);
        };
    }

    private TopicSpec spec(String name, int count, int minIsr, CleanupPolicy policy, Duration retention,
                           Class<?> valueType) {
        return new TopicSpec(name, count, replicationFactor, policy, retention, minIsr, Map.of(), String.class,
                valueType);
    }

    private static Map<CatalogTopic, Integer> defaultPartitions() {
        Map<CatalogTopic, Integer> map = new EnumMap<>(CatalogTopic.class);
        map.put(CatalogTopic.CHANGES, DEFAULT_CHANGES_PARTITIONS);
        map.put(CatalogTopic.PIPELINE_STATUS, 6);
        map.put(CatalogTopic.SUBSCRIPTIONS, 1);
        map.put(CatalogTopic.ALERT_LEDGER, DEFAULT_CHANGES_PARTITIONS);
        map.put(CatalogTopic.ALERT_DLQ, 6);
        map.put(CatalogTopic.LOG_CHUNKS, 12);
        map.put(CatalogTopic.CDC_DLQ, 1);
        map.put(CatalogTopic.CDC_OFFSETS, 1);
        map.put(CatalogTopic.CDC_SCHEMA_HISTORY, 1);
        map.put(CatalogTopic.ALERT_DIGEST, 6);
        map.put(CatalogTopic.ALERT_RETRY, 12);
        map.put(CatalogTopic.ALERT_DESTINATIONS, 1);
        return map;
    }

    @Override
    public String toString() {
        return "TopicCatalog[namespace=" + namespace + ", replicationFactor=" + replicationFactor
                + ", statusMinCompactionLag=" + statusMinCompactionLag + "]";
    }
}
