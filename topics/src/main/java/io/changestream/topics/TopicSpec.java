package io.changestream.topics;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * One topic of the {@link TopicCatalog}: its full name, layout, policies and the Java types of its keys and values.
 * Immutable; safe to share between threads.
 *
 * @param name              full topic name, namespace included (e.g. {@code cs.changes})
 * @param partitions        partition count (≥ 1)
 * @param replicationFactor replication factor (≥ 1)
 * @param cleanupPolicy     delete, compact or both
 * @param retention         {@code retention.ms}: null = broker default, {@link #RETAIN_FOREVER} = infinite
 * @param minInsyncReplicas {@code min.insync.replicas} (1 ≤ minIsr ≤ replicationFactor)
 * @param extraConfigs      further topic configs, written as given
 * @param keyType           Java type of the key ({@code String.class} for changestream's topics)
 * @param valueType         Java type of the value (a record of {@code io.changestream.topics.model}, or
 *                          {@code byte[].class} for Debezium's own topics)
 */
public record TopicSpec(
        String name,
        int partitions,
        short replicationFactor,
        CleanupPolicy cleanupPolicy,
        Duration retention,
        int minInsyncReplicas,
        Map<String, String> extraConfigs,
        Class<?> keyType,
        Class<?> valueType) {

    /** Retention value meaning "keep forever" ({@code retention.ms=-1}). */
    public static final Duration RETAIN_FOREVER = Duration.ofMillis(-1);

    public TopicSpec {
        Objects.requireNonNull(name, "TopicSpec.name is required");
        if (name.isBlank() || name.length() > 249 || !name.matches("[a-zA-Z0-9._-]+")) {
            throw new TopicsException("TopicSpec.name '" + name
                    + "' is not a legal Kafka topic name ([a-zA-Z0-9._-], at most 249 characters)");
        }
        if (partitions < 1) {
            throw new TopicsException("TopicSpec.partitions of " + name + " must be >= 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new TopicsException("TopicSpec.replicationFactor of " + name + " must be >= 1, was "
                    + replicationFactor);
        }
        if (minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
            throw new TopicsException("TopicSpec.minInsyncReplicas of " + name + " must be in [1, "
                    + replicationFactor + "], was " + minInsyncReplicas);
        }
        Objects.requireNonNull(cleanupPolicy, "TopicSpec.cleanupPolicy is required");
        if (retention != null && !retention.equals(RETAIN_FOREVER) && (retention.isNegative() || retention.isZero())) {
            throw new TopicsException("TopicSpec.retention of " + name + " must be > 0 or RETAIN_FOREVER, was "
                    + retention);
        }
        extraConfigs = extraConfigs == null ? Map.of() : Map.copyOf(extraConfigs);
        Objects.requireNonNull(keyType, "TopicSpec.keyType is required");
        Objects.requireNonNull(valueType, "TopicSpec.valueType is required");
    }

    /**
     * The topic configs this spec sets: {@code cleanup.policy}, {@code retention.ms} (when set),
     * {@code min.insync.replicas}, then the extra configs (which win on a clash).
     */
    public Map<String, String> configs() {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, cleanupPolicy.configValue());
        if (retention != null) {
            configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
        }
        configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(minInsyncReplicas));
        configs.putAll(extraConfigs);
        return Map.copyOf(configs);
    }

    /** The Admin client's {@link NewTopic} for this spec, configs included. */
    public NewTopic newTopic() {
        return new NewTopic(name, partitions, replicationFactor).configs(configs());
    }

    /** This spec with another partition count. */
    public TopicSpec withPartitions(int count) {
        return new TopicSpec(name, count, replicationFactor, cleanupPolicy, retention, minInsyncReplicas,
                extraConfigs, keyType, valueType);
    }

    /** This spec with another replication factor; min ISR is lowered to fit when needed. */
    public TopicSpec withReplicationFactor(short factor) {
        return new TopicSpec(name, partitions, factor, cleanupPolicy, retention,
                Math.max(1, Math.min(minInsyncReplicas, factor)), extraConfigs, keyType, valueType);
    }

    /** This spec with one more topic config (or a replaced one). */
    public TopicSpec withConfig(String key, String value) {
        Map<String, String> configs = new LinkedHashMap<>(extraConfigs);
        configs.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return new TopicSpec(name, partitions, replicationFactor, cleanupPolicy, retention, minInsyncReplicas,
                configs, keyType, valueType);
    }
}
