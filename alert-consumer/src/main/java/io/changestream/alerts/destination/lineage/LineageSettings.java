package io.changestream.alerts.destination.lineage;

import io.changestream.topics.model.PipelineState;
import java.net.URI;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of OpenLineage destinations.
 *
 * @param namespace          job namespace (default {@code openmetadata})
 * @param producer           the {@code producer} URI of every event (default changestream's repository URL)
 * @param statuses           run states that are emitted (default FAILED, PARTIAL_SUCCESS, STOPPED, SUCCESS)
 * @param gzipThresholdBytes HTTP bodies larger than this are gzip-compressed (default 16 KiB)
 * @param maxBatchEvents     most events in one HTTP batch request (default 100)
 * @param kafkaTopics        the only topics the Kafka transport may write (setting
 *                           {@code destinations.lineage.kafkaTopics}, default {@value #DEFAULT_KAFKA_TOPIC_SUFFIX}
 *                           in the service's namespace); a destination naming another topic is refused
 */
public record LineageSettings(String namespace, URI producer, Set<PipelineState> statuses, int gzipThresholdBytes,
                              int maxBatchEvents, Set<String> kafkaTopics) {

    /** The default lineage topic, after the topic namespace. */
    public static final String DEFAULT_KAFKA_TOPIC_SUFFIX = "openlineage";

    /** The defaults. */
    public static final LineageSettings DEFAULTS = new LineageSettings("openmetadata",
            URI.create("https://github.com/changestream/changestream"),
            EnumSet.of(PipelineState.FAILED, PipelineState.PARTIAL_SUCCESS, PipelineState.STOPPED,
                    PipelineState.SUCCESS), 16 << 10, 100);

    /** With the default Kafka topic allowlist ({@code cs.openlineage}). */
    public LineageSettings(String namespace, URI producer, Set<PipelineState> statuses, int gzipThresholdBytes,
                           int maxBatchEvents) {
        this(namespace, producer, statuses, gzipThresholdBytes, maxBatchEvents,
                Set.of(io.changestream.topics.TopicCatalog.DEFAULT_NAMESPACE + DEFAULT_KAFKA_TOPIC_SUFFIX));
    }

    public LineageSettings {
        Objects.requireNonNull(namespace, "lineage.namespace is required");
        if (namespace.isBlank()) {
            throw new IllegalArgumentException("lineage.namespace must not be blank");
        }
        Objects.requireNonNull(producer, "lineage.producer is required");
        statuses = Set.copyOf(Objects.requireNonNull(statuses, "lineage.statuses is required"));
        if (gzipThresholdBytes < 0) {
            throw new IllegalArgumentException("lineage.gzipThresholdBytes must be >= 0, was " + gzipThresholdBytes);
        }
        if (maxBatchEvents < 1) {
            throw new IllegalArgumentException("lineage.maxBatchEvents must be >= 1, was " + maxBatchEvents);
        }
        kafkaTopics = Set.copyOf(Objects.requireNonNull(kafkaTopics, "destinations.lineage.kafkaTopics is required"));
        for (String topic : kafkaTopics) {
            if (topic.isBlank() || topic.startsWith("__")) {
                throw new IllegalArgumentException("destinations.lineage.kafkaTopics must name plain topics, was '"
                        + topic + "'");
            }
        }
    }

    /** These settings with another Kafka topic allowlist. */
    public LineageSettings withKafkaTopics(Set<String> topics) {
        return new LineageSettings(namespace, producer, statuses, gzipThresholdBytes, maxBatchEvents, topics);
    }
}
