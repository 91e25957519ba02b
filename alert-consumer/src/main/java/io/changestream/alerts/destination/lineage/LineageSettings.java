package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Json;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Settings of OpenLineage destinations (service settings {@code lineage.*}; a destination's {@code config} may
 * override {@code namespace}, {@code statuses}, {@code gzipThresholdBytes} and {@code maxBatchEvents}).
 * Immutable.
 *
 * @param namespace          job namespace ({@code lineage.namespace}, default {@code openmetadata})
 * @param producer           the {@code producer} URI of every event (default changestream's repository URL)
 * @param statuses           run states that are emitted ({@code lineage.statuses}, the platform's names; default
 *                           failed, partialSuccess, stopped, success)
 * @param gzipThresholdBytes HTTP bodies larger than this are gzip-compressed ({@code lineage.gzipThresholdBytes},
 *                           default 16 KiB)
 * @param maxBatchEvents     most events in one HTTP batch request ({@code lineage.maxBatchEvents}, default 100)
 * @param batchWindow        how long the first event for a destination with a {@code batchEndpoint} waits for
 *                           others to share its request ({@code lineage.batchWindow}, default 100 ms; 0 = no
 *                           batching across events)
 * @param platformUrl        the platform's URL, the namespace of every output dataset
 *                           ({@code destinations.platformUrl})
 * @param kafkaTopics        the only topics the Kafka transport may write (setting
 *                           {@code destinations.lineage.kafkaTopics}, default {@value #DEFAULT_KAFKA_TOPIC_SUFFIX}
 *                           in the service's namespace); a destination naming another topic is refused
 */
public record LineageSettings(String namespace, URI producer, Set<PipelineState> statuses, int gzipThresholdBytes,
                              int maxBatchEvents, Duration batchWindow, URI platformUrl,
                              Set<String> kafkaTopics) {

    /** The default lineage topic, after the topic namespace. */
    public static final String DEFAULT_KAFKA_TOPIC_SUFFIX = "openlineage";

    /** The defaults. */
    public static final LineageSettings DEFAULTS = new LineageSettings("openmetadata",
            URI.create("https://github.com/changestream/changestream"),
            EnumSet.of(PipelineState.FAILED, PipelineState.PARTIAL_SUCCESS, PipelineState.STOPPED,
                    PipelineState.SUCCESS), 16 << 10, 100, Duration.ofMillis(100), URI.create("http://localhost:8585"),
            Set.of(io.changestream.topics.TopicCatalog.DEFAULT_NAMESPACE + DEFAULT_KAFKA_TOPIC_SUFFIX));

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
        Objects.requireNonNull(batchWindow, "lineage.batchWindow is required");
        if (batchWindow.isNegative() || batchWindow.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("lineage.batchWindow must be between 0 and 10 s, was " + batchWindow);
        }
        Objects.requireNonNull(platformUrl, "destinations.platformUrl is required");
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
        return new LineageSettings(namespace, producer, statuses, gzipThresholdBytes, maxBatchEvents, batchWindow,
                platformUrl, topics);
    }

    /** The earlier five settings with the default batch window and platform URL. */
    public LineageSettings(String namespace, URI producer, Set<PipelineState> statuses, int gzipThresholdBytes,
                           int maxBatchEvents) {
        this(namespace, producer, statuses, gzipThresholdBytes, maxBatchEvents, DEFAULTS.batchWindow(),
                DEFAULTS.platformUrl(), DEFAULTS.kafkaTopics());
    }

    /**
     * Reads a list of the platform's state names ({@code failed,partialSuccess}), case-insensitive.
     *
     * @throws IllegalArgumentException naming the unknown state
     */
    public static Set<PipelineState> parseStatuses(String list) {
        Set<PipelineState> states = EnumSet.noneOf(PipelineState.class);
        for (String name : list.split(",")) {
            if (!name.isBlank()) {
                states.add(state(name.strip()));
            }
        }
        return states;
    }

    private static PipelineState state(String name) {
        for (PipelineState s : PipelineState.values()) {
            if (platformName(s).equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run state '" + name + "', expected one of "
                + EnumSet.allOf(PipelineState.class).stream().map(LineageSettings::platformName)
                .collect(Collectors.joining(", ")));
    }

    /** The platform's name of a state ({@code partialSuccess}). */
    static String platformName(PipelineState state) {
        return Json.mapper().valueToTree(state).asText();
    }

    /**
     * These settings with a destination's overrides ({@code config.namespace}, {@code config.statuses} as an array
     * of state names, {@code config.gzipThresholdBytes}, {@code config.maxBatchEvents}).
     *
     * @throws DestinationConfigException naming the config field at fault
     */
    public LineageSettings forDestination(JsonNode config) {
        if (config == null || !config.isObject()) {
            return this;
        }
        String ns = namespace;
        JsonNode n = config.get("namespace");
        if (n != null && !n.isNull()) {
            if (!n.isTextual() || n.asText().isBlank()) {
                throw new DestinationConfigException("config.namespace", "must be a non-blank string");
            }
            ns = n.asText();
        }
        Set<PipelineState> states = statuses;
        JsonNode s = config.get("statuses");
        if (s != null && !s.isNull()) {
            if (!s.isArray()) {
                throw new DestinationConfigException("config.statuses", "must be an array of run states");
            }
            states = EnumSet.noneOf(PipelineState.class);
            for (JsonNode item : s) {
                try {
                    states.add(state(item.asText()));
                } catch (IllegalArgumentException e) {
                    throw new DestinationConfigException("config.statuses", e.getMessage());
                }
            }
        }
        int gzip = intField(config, "gzipThresholdBytes", gzipThresholdBytes, 0);
        int batch = intField(config, "maxBatchEvents", maxBatchEvents, 1);
        return new LineageSettings(ns, producer, states, gzip, batch, batchWindow, platformUrl, kafkaTopics);
    }

    private static int intField(JsonNode config, String field, int fallback, int min) {
        JsonNode node = config.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.canConvertToInt() || !node.isIntegralNumber() || node.asInt() < min) {
            throw new DestinationConfigException("config." + field, "must be an integer >= " + min);
        }
        return node.asInt();
    }
}
