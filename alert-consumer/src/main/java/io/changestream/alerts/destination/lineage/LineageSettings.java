package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.platform.PlatformNames;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.PipelineState;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings of OpenLineage destinations (service settings {@code lineage.*}; a destination's {@code config} may
 * override {@code namespace}, {@code statuses}, {@code gzipThresholdBytes} and {@code maxBatchEvents}).
 * Immutable.
 *
 * @param namespace          {@link #NAMESPACE}: the job namespace
 * @param producer           the {@code producer} URI of every event (default changestream's repository URL)
 * @param statuses           {@link #STATUSES}: run states that are emitted
 * @param gzipThresholdBytes {@link #GZIP_THRESHOLD_BYTES}: larger HTTP bodies are gzip-compressed
 * @param maxBatchEvents     {@link #MAX_BATCH_EVENTS}
 * @param batchWindow        {@link #BATCH_WINDOW}: how long the first event for a destination with a
 *                           {@code batchEndpoint} waits for others to share its request (0 = no batching)
 * @param platformUrl        the platform's URL, the namespace of every output dataset
 *                           ({@code destinations.platformUrl})
 * @param kafkaTopics        {@link #KAFKA_TOPICS}: the only topics the Kafka transport may write (default
 *                           {@value #DEFAULT_KAFKA_TOPIC_SUFFIX} in the service's namespace); a destination naming
 *                           another topic is refused
 */
public record LineageSettings(String namespace, URI producer, Set<PipelineState> statuses, int gzipThresholdBytes,
                              int maxBatchEvents, Duration batchWindow, URI platformUrl,
                              Set<String> kafkaTopics) {

    /** The default lineage topic, after the topic namespace. */
    public static final String DEFAULT_KAFKA_TOPIC_SUFFIX = "openlineage";

    public static final Setting<String> NAMESPACE = Setting.string("lineage.namespace").defaultsTo("openmetadata")
            .doc("OpenLineage job namespace");
    public static final Setting<Set<PipelineState>> STATUSES = PlatformNames.RUN_STATES.setting("lineage.statuses",
            EnumSet.of(PipelineState.FAILED, PipelineState.PARTIAL_SUCCESS, PipelineState.STOPPED,
                    PipelineState.SUCCESS)).doc("run states sent as OpenLineage events (the platform's names)");
    public static final Setting<Integer> GZIP_THRESHOLD_BYTES = Setting.integer("lineage.gzipThresholdBytes")
            .defaultsTo(16 << 10).atLeast(0).doc("OpenLineage HTTP bodies above this are gzipped");
    public static final Setting<Integer> MAX_BATCH_EVENTS = Setting.integer("lineage.maxBatchEvents").defaultsTo(100)
            .atLeast(1).doc("most events in one OpenLineage batch request");
    public static final Setting<Duration> BATCH_WINDOW = Setting.duration("lineage.batchWindow")
            .defaultsTo(Duration.ofMillis(100))
            .check(d -> !d.isNegative() && d.compareTo(Duration.ofSeconds(10)) <= 0, "must be between 0 and 10 s")
            .doc("wait for more events to one batch endpoint, 0 = none");
    public static final Setting<List<String>> KAFKA_TOPICS = Setting.list("destinations.lineage.kafkaTopics")
            .doc("topics the OpenLineage Kafka transport may write, comma-separated; default "
                    + "<topics.namespace>openlineage; never a catalog topic");
    /** The OpenLineage settings. */
    public static final List<Setting<?>> SETTINGS = List.of(KAFKA_TOPICS, NAMESPACE, STATUSES, GZIP_THRESHOLD_BYTES,
            MAX_BATCH_EVENTS, BATCH_WINDOW);

    /** The defaults. */
    public static final LineageSettings DEFAULTS = new LineageSettings(NAMESPACE.defaultOrFail(),
            URI.create("https://github.com/changestream/changestream"), STATUSES.defaultOrFail(),
            GZIP_THRESHOLD_BYTES.defaultOrFail(), MAX_BATCH_EVENTS.defaultOrFail(), BATCH_WINDOW.defaultOrFail(),
            PlatformSettings.URL.defaultOrFail(),
            Set.of(TopicCatalog.DEFAULT_NAMESPACE + DEFAULT_KAFKA_TOPIC_SUFFIX));

    public LineageSettings {
        NAMESPACE.check(namespace);
        if (namespace.isBlank()) {
            throw new IllegalArgumentException("lineage.namespace must not be blank");
        }
        Objects.requireNonNull(producer, "lineage.producer is required");
        statuses = Set.copyOf(STATUSES.check(statuses));
        GZIP_THRESHOLD_BYTES.check(gzipThresholdBytes);
        MAX_BATCH_EVENTS.check(maxBatchEvents);
        BATCH_WINDOW.check(batchWindow);
        Objects.requireNonNull(platformUrl, "destinations.platformUrl is required");
        kafkaTopics = Set.copyOf(Objects.requireNonNull(kafkaTopics, "destinations.lineage.kafkaTopics is required"));
        for (String topic : kafkaTopics) {
            if (topic.isBlank() || topic.startsWith("__")) {
                throw new IllegalArgumentException("destinations.lineage.kafkaTopics must name plain topics, was '"
                        + topic + "'");
            }
        }
    }

    /**
     * The OpenLineage settings {@code settings} give; the Kafka allowlist defaults to {@value
     * #DEFAULT_KAFKA_TOPIC_SUFFIX} in {@code catalog}'s namespace and may never name a catalog topic.
     */
    public static LineageSettings from(SettingsReader settings, URI platformUrl, TopicCatalog catalog) {
        Set<String> topics = new TreeSet<>(settings.get(KAFKA_TOPICS) == null ? List.of()
                : settings.get(KAFKA_TOPICS));
        if (topics.isEmpty()) {
            topics.add(catalog.namespace() + DEFAULT_KAFKA_TOPIC_SUFFIX);
        }
        for (String topic : topics) {
            if (catalog.byName(topic).isPresent() || TopicCatalog.defaults().byName(topic).isPresent()) {
                throw new IllegalArgumentException(KAFKA_TOPICS.key() + " must not name a catalog topic, was '"
                        + topic + "'");
            }
        }
        return new LineageSettings(settings.get(NAMESPACE), DEFAULTS.producer(), settings.get(STATUSES),
                settings.get(GZIP_THRESHOLD_BYTES), settings.get(MAX_BATCH_EVENTS), settings.get(BATCH_WINDOW),
                platformUrl, topics);
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
                    states.add(PlatformNames.RUN_STATES.parse(item.asText()));
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
