package io.changestream.runtime;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingException;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;

/**
 * Settings of a {@link ConsumerRuntime}, validated at construction (the message names the setting). Every bound of
 * the runtime is one of these, declared once as a {@link Setting} constant ({@link #SETTINGS}: key, default, bounds,
 * meaning); two ways to build one: {@link #from} reads the {@code runtime.*} keys of a settings file, {@link #builder}
 * is the explicit form for code and tests. Both start from the declared defaults.
 *
 * @param topics                  topics to subscribe to. Required.
 * @param kafka                   KafkaConsumer properties; {@code bootstrap.servers} and {@code group.id} are
 *                                required. The runtime sets {@code enable.auto.commit=false} and the
 *                                cooperative-sticky assignor itself and refuses other values for them. Failure
 *                                detection (decision 2602): on the classic group protocol (the default) an absent
 *                                {@code session.timeout.ms} is {@value #DEFAULT_SESSION_TIMEOUT_MS} (the lowest a stock
 *                                broker's {@code group.min.session.timeout.ms} accepts, Kafka's own default is 45 s)
 *                                and an absent {@code heartbeat.interval.ms} {@value #DEFAULT_HEARTBEAT_INTERVAL_MS};
 *                                the heartbeat must stay below a third of the session. With
 *                                {@code group.protocol=consumer} (KIP-848) the broker owns both and the assignor, so
 *                                none of the three may be set. {@code group.instance.id} is refused: static
 *                                membership is {@code groupInstanceId}, which keeps the ids of several consumer
 *                                threads apart.
 * @param consumerThreads         {@link #CONSUMER_THREADS}
 * @param lanes                   {@link #LANES}
 * @param keyAssignment           {@link #KEY_ASSIGNMENT}
 * @param laneCapacity            {@link #LANE_CAPACITY}
 * @param delayQueueCapacity      {@link #DELAY_QUEUE_CAPACITY}
 * @param maxInFlightPerPartition {@link #MAX_IN_FLIGHT_PER_PARTITION}
 * @param maxAttempts             {@link #MAX_ATTEMPTS}
 * @param initialBackoff          {@link #INITIAL_BACKOFF}
 * @param maxBackoff              {@link #MAX_BACKOFF}
 * @param backoffMultiplier       {@link #BACKOFF_MULTIPLIER}
 * @param jitter                  {@link #JITTER}
 * @param processingTimeout       {@link #PROCESSING_TIMEOUT}
 * @param commitInterval          {@link #COMMIT_INTERVAL}
 * @param pollTimeout             {@link #POLL_TIMEOUT}
 * @param revokeTimeout           {@link #REVOKE_TIMEOUT}
 * @param closeTimeout            {@link #CLOSE_TIMEOUT}
 * @param maxCallsPerLane         {@link #MAX_CALLS_PER_LANE}
 * @param maxCalls                {@link #MAX_CALLS}
 * @param maxBufferedBytes        {@link #MAX_BUFFERED_BYTES}
 * @param consumerRestartBackoff  {@link #CONSUMER_RESTART_BACKOFF}
 * @param consumerMaxRestarts     {@link #CONSUMER_MAX_RESTARTS}
 * @param groupInstanceId         {@link #GROUP_INSTANCE_ID}; static group membership: empty (the default) for
 *                                none; otherwise consumer thread {@code i} joins with {@code group.instance.id = <groupInstanceId>-<i>}, and the value
 *                                {@value #HOST_NAME} stands for this host's name. Each instance of a group needs its
 *                                own (a second member with the same id fences the first). A static member does not
 *                                leave the group when it stops: its partitions wait for it up to the session timeout
 *                                (decision 2602).
 * @param statsLogInterval        {@link #STATS_LOG_INTERVAL}
 */
public record RuntimeConfig(
        List<String> topics,
        Map<String, Object> kafka,
        int consumerThreads,
        int lanes,
        KeyAssignment keyAssignment,
        int laneCapacity,
        int delayQueueCapacity,
        int maxInFlightPerPartition,
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        double backoffMultiplier,
        double jitter,
        Duration processingTimeout,
        Duration commitInterval,
        Duration pollTimeout,
        Duration revokeTimeout,
        Duration closeTimeout,
        int maxCallsPerLane,
        int maxCalls,
        long maxBufferedBytes,
        Duration consumerRestartBackoff,
        int consumerMaxRestarts,
        String groupInstanceId,
        Duration statsLogInterval) {

    /** Prefix of the keys {@link #from} reads; Kafka properties are read from {@code runtime.kafka.*}. */
    public static final String PREFIX = "runtime.";

    public static final Setting<Integer> CONSUMER_THREADS = Setting.integer(PREFIX + "consumerThreads").defaultsTo(1)
            .between(1, 1024).doc("consumer threads, each owning one KafkaConsumer of the group");
    public static final Setting<Integer> LANES = Setting.integer(PREFIX + "lanes").defaultsTo(16).between(1, 4096)
            .doc("KeyBy lanes, each a FIFO with one processor thread");
    public static final Setting<KeyAssignment> KEY_ASSIGNMENT = Setting.oneOf(PREFIX + "keyAssignment",
            KeyAssignment.class).defaultsTo(KeyAssignment.LEAST_LOADED).doc("how routing keys map to lanes");
    public static final Setting<Integer> LANE_CAPACITY = Setting.integer(PREFIX + "laneCapacity").defaultsTo(1_000)
            .between(1, 1 << 24).doc("events one lane may hold; a full lane pauses the partitions feeding it");
    public static final Setting<Integer> DELAY_QUEUE_CAPACITY = Setting.integer(PREFIX + "delayQueueCapacity")
            .defaultsTo(10_000).between(1, 1 << 24).doc("events that may wait (retry backoff, not-before times and "
                    + "the later events of their keys) before every partition is paused");
    public static final Setting<Integer> MAX_IN_FLIGHT_PER_PARTITION = Setting.integer(PREFIX
            + "maxInFlightPerPartition").defaultsTo(100_000).between(1, 1 << 28).doc("offsets of one partition taken "
            + "in and not yet committable before that partition is paused");
    public static final Setting<Integer> MAX_ATTEMPTS = Setting.integer(PREFIX + "maxAttempts").defaultsTo(5)
            .between(1, 1_000).doc("attempts per event, the first included, before retries are exhausted");
    public static final Setting<Duration> INITIAL_BACKOFF = Setting.duration(PREFIX + "initialBackoff")
            .defaultsTo(Duration.ofSeconds(1)).positive().doc("delay before the first retry");
    public static final Setting<Duration> MAX_BACKOFF = Setting.duration(PREFIX + "maxBackoff")
            .defaultsTo(Duration.ofSeconds(60)).positive().doc("longest retry delay");
    public static final Setting<Double> BACKOFF_MULTIPLIER = Setting.decimal(PREFIX + "backoffMultiplier")
            .defaultsTo(2.0).check(m -> m >= 1.0 && m <= 100.0, "must be between 1 and 100")
            .doc("growth of the delay per attempt");
    public static final Setting<Double> JITTER = Setting.decimal(PREFIX + "jitter").defaultsTo(0.2)
            .check(j -> j >= 0.0 && j < 1.0, "must be in [0, 1)").doc("random spread of each delay, delay * (1 ± jitter)");
    public static final Setting<Duration> PROCESSING_TIMEOUT = Setting.duration(PREFIX + "processingTimeout")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("longest one attempt may run; past it the thread is "
                    + "interrupted and the event fails without retry");
    public static final Setting<Duration> COMMIT_INTERVAL = Setting.duration(PREFIX + "commitInterval")
            .defaultsTo(Duration.ofSeconds(1)).positive().doc("how often each consumer thread commits");
    public static final Setting<Duration> POLL_TIMEOUT = Setting.duration(PREFIX + "pollTimeout")
            .defaultsTo(Duration.ofMillis(100)).positive().doc("longest one poll blocks (also how late a commit may "
                    + "be)");
    public static final Setting<Duration> REVOKE_TIMEOUT = Setting.duration(PREFIX + "revokeTimeout")
            .defaultsTo(Duration.ofSeconds(10)).positive().doc("how long a revoke waits for the revoked partitions' "
                    + "taken-in events; below max.poll.interval.ms");
    public static final Setting<Duration> CLOSE_TIMEOUT = Setting.duration(PREFIX + "closeTimeout")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("bound of close() and of the SIGTERM drain");
    public static final Setting<Integer> MAX_CALLS_PER_LANE = Setting.integer(PREFIX + "maxCallsPerLane")
            .defaultsTo(64).between(1, 1 << 16).doc("AsyncProcessor calls one lane may have running at once");
    public static final Setting<Integer> MAX_CALLS = Setting.integer(PREFIX + "maxCalls").defaultsTo(1_024)
            .between(1, 1 << 20).doc("AsyncProcessor calls the whole runtime may have running at once");
    public static final Setting<Long> MAX_BUFFERED_BYTES = Setting.number(PREFIX + "maxBufferedBytes")
            .defaultsTo(256L * 1024 * 1024).atLeast(1024).doc("serialized bytes of the records taken in and not done "
                    + "before every partition is paused; resumes below 90 %");
    public static final Setting<Duration> CONSUMER_RESTART_BACKOFF = Setting.duration(PREFIX
            + "consumerRestartBackoff").defaultsTo(Duration.ofSeconds(1)).positive().doc("first delay before a dead "
            + "consumer thread is started again; doubles per consecutive failure up to 32 times this");
    public static final Setting<Integer> CONSUMER_MAX_RESTARTS = Setting.integer(PREFIX + "consumerMaxRestarts")
            .defaultsTo(5).between(0, 1_000).doc("consecutive restarts of one consumer thread before the runtime "
                    + "reports itself not live");
    /** The {@code groupInstanceId} that stands for this host's name ({@code HOSTNAME}, else the resolver's). */
    public static final String HOST_NAME = "${HOSTNAME}";
    public static final Setting<String> GROUP_INSTANCE_ID = Setting.string(PREFIX + "groupInstanceId").defaultsTo("")
            .check(id -> id.strip().isEmpty() || id.strip().matches("[A-Za-z0-9._${}-]{1,200}"),
                    "must be letters, digits, '.', '_' or '-' (at most 200), or " + HOST_NAME)
            .doc("static group membership: empty for none, else thread i joins as <groupInstanceId>-<i>");
    public static final Setting<Duration> STATS_LOG_INTERVAL = Setting.duration(PREFIX + "statsLogInterval")
            .defaultsTo(Duration.ofMinutes(1)).check(d -> d.isZero() || d.toMillis() >= 1_000,
                    "must be zero (no stats line) or at least 1 s").doc("how often the runtime logs one INFO line of "
                    + "throughput and memory");

    /** Every {@code runtime.*} setting besides {@code runtime.topics} and the {@code runtime.kafka.*} properties. */
    public static final List<Setting<?>> SETTINGS = List.of(CONSUMER_THREADS, LANES, KEY_ASSIGNMENT, LANE_CAPACITY,
            DELAY_QUEUE_CAPACITY, MAX_IN_FLIGHT_PER_PARTITION, MAX_ATTEMPTS, INITIAL_BACKOFF, MAX_BACKOFF,
            BACKOFF_MULTIPLIER, JITTER, PROCESSING_TIMEOUT, COMMIT_INTERVAL, POLL_TIMEOUT, REVOKE_TIMEOUT,
            CLOSE_TIMEOUT, MAX_CALLS_PER_LANE, MAX_CALLS, MAX_BUFFERED_BYTES, CONSUMER_RESTART_BACKOFF,
            CONSUMER_MAX_RESTARTS, GROUP_INSTANCE_ID, STATS_LOG_INTERVAL);

    /** {@code session.timeout.ms} on the classic protocol when the Kafka properties leave it out (decision 2602). */
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 6_000;
    /** {@code heartbeat.interval.ms} on the classic protocol when the Kafka properties leave it out. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;

    private static final String KAFKA_PREFIX = PREFIX + "kafka.";
    private static final long KAFKA_DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

    public RuntimeConfig {
        Objects.requireNonNull(topics, "topics");
        topics = List.copyOf(topics);
        if (topics.isEmpty() || topics.stream().anyMatch(String::isBlank)) {
            throw new IllegalArgumentException("topics must name at least one topic and no blank ones, was " + topics);
        }
        Objects.requireNonNull(kafka, "kafka");
        kafka = withFailureDetection(kafka);
        requireKafka(kafka, ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        requireKafka(kafka, ConsumerConfig.GROUP_ID_CONFIG);
        Object autoCommit = kafka.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        if (autoCommit != null && Boolean.parseBoolean(autoCommit.toString())) {
            throw new IllegalArgumentException(
                    "kafka enable.auto.commit must be false or unset: the runtime commits only done offsets");
        }
        Object assignor = kafka.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        if (assignor != null && !assignor.toString().equals(CooperativeStickyAssignor.class.getName())
                && !assignor.equals(CooperativeStickyAssignor.class)) {
            throw new IllegalArgumentException("kafka partition.assignment.strategy must be unset or "
                    + CooperativeStickyAssignor.class.getName() + ", was " + assignor);
        }
        CONSUMER_THREADS.check(consumerThreads);
        LANES.check(lanes);
        KEY_ASSIGNMENT.check(keyAssignment);
        LANE_CAPACITY.check(laneCapacity);
        DELAY_QUEUE_CAPACITY.check(delayQueueCapacity);
        MAX_IN_FLIGHT_PER_PARTITION.check(maxInFlightPerPartition);
        MAX_ATTEMPTS.check(maxAttempts);
        INITIAL_BACKOFF.check(initialBackoff);
        MAX_BACKOFF.check(maxBackoff);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new SettingException(MAX_BACKOFF.key(), MAX_BACKOFF.key() + " must be at least "
                    + INITIAL_BACKOFF.key() + " (" + initialBackoff + "), was " + maxBackoff);
        }
        BACKOFF_MULTIPLIER.check(backoffMultiplier);
        JITTER.check(jitter);
        PROCESSING_TIMEOUT.check(processingTimeout);
        COMMIT_INTERVAL.check(commitInterval);
        POLL_TIMEOUT.check(pollTimeout);
        REVOKE_TIMEOUT.check(revokeTimeout);
        CLOSE_TIMEOUT.check(closeTimeout);
        MAX_CALLS_PER_LANE.check(maxCallsPerLane);
        MAX_CALLS.check(maxCalls);
        MAX_BUFFERED_BYTES.check(maxBufferedBytes);
        CONSUMER_RESTART_BACKOFF.check(consumerRestartBackoff);
        CONSUMER_MAX_RESTARTS.check(consumerMaxRestarts);
        groupInstanceId = GROUP_INSTANCE_ID.check(groupInstanceId).strip();
        STATS_LOG_INTERVAL.check(statsLogInterval);
        long maxPollInterval = kafka.containsKey(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG)
                ? Long.parseLong(kafka.get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG).toString())
                : KAFKA_DEFAULT_MAX_POLL_INTERVAL_MS;
        if (revokeTimeout.toMillis() + pollTimeout.toMillis() >= maxPollInterval) {
            throw new IllegalArgumentException("revokeTimeout (" + revokeTimeout + ") plus pollTimeout ("
                    + pollTimeout + ") must stay below kafka max.poll.interval.ms (" + maxPollInterval + " ms)");
        }
    }

    /**
     * The Kafka properties with the failure-detection defaults filled in (classic protocol), refusing what the chosen
     * group protocol does not allow.
     */
    private static Map<String, Object> withFailureDetection(Map<String, Object> given) {
        Map<String, Object> kafka = new HashMap<>(given);
        if (kafka.containsKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)) {
            throw new IllegalArgumentException("kafka group.instance.id must be unset: set groupInstanceId (each "
                    + "consumer thread gets its own id from it)");
        }
        Object protocol = kafka.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        if (protocol != null && protocol.toString().strip().equalsIgnoreCase("consumer")) {
            for (String key : List.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                    ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
                if (kafka.containsKey(key)) {
                    throw new IllegalArgumentException("kafka " + key + " must be unset with group.protocol=consumer: "
                            + "the broker owns it (group.consumer.session.timeout.ms, "
                            + "group.consumer.heartbeat.interval.ms, group.consumer.assignors)");
                }
            }
            return Map.copyOf(kafka);
        }
        kafka.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, DEFAULT_SESSION_TIMEOUT_MS);
        kafka.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, DEFAULT_HEARTBEAT_INTERVAL_MS);
        long session = kafkaMillis(kafka, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG);
        long heartbeat = kafkaMillis(kafka, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG);
        if (heartbeat < 1 || heartbeat * 3 > session) {
            throw new IllegalArgumentException("kafka heartbeat.interval.ms (" + heartbeat + ") must be positive and at "
                    + "most a third of session.timeout.ms (" + session + ")");
        }
        return Map.copyOf(kafka);
    }

    private static long kafkaMillis(Map<String, Object> kafka, String key) {
        try {
            return Long.parseLong(kafka.get(key).toString().strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kafka " + key + " does not parse: '" + kafka.get(key) + "'", e);
        }
    }

    /**
     * Whether the group uses the classic protocol (the default; {@code group.protocol=consumer} is KIP-848's), so the
     * runtime sets the cooperative-sticky assignor.
     */
    public boolean classicProtocol() {
        Object protocol = kafka.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        return protocol == null || !protocol.toString().strip().equalsIgnoreCase("consumer");
    }

    /**
     * The {@code group.instance.id} of consumer thread {@code index}, empty without static membership: {@code
     * <groupInstanceId>-<index>}, {@link #HOST_NAME} replaced by {@code hostName}.
     */
    public java.util.Optional<String> groupInstanceId(int index, java.util.function.Supplier<String> hostName) {
        if (groupInstanceId.isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(groupInstanceId.replace(HOST_NAME, hostName.get()) + "-" + index);
    }

    /**
     * The same runtime for another consumer group (a replay's): {@code group.id} replaced, no static membership and no
     * {@code client.id} of its own (they name this group's members).
     */
    public RuntimeConfig forGroup(String otherGroupId) {
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, Objects.requireNonNull(otherGroupId, "groupId"));
        props.remove(ConsumerConfig.CLIENT_ID_CONFIG);
        props.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        return new RuntimeConfig(topics, props, consumerThreads, lanes, keyAssignment, laneCapacity, delayQueueCapacity,
                maxInFlightPerPartition, maxAttempts, initialBackoff, maxBackoff, backoffMultiplier, jitter,
                processingTimeout, commitInterval, pollTimeout, revokeTimeout, closeTimeout, maxCallsPerLane, maxCalls,
                maxBufferedBytes, consumerRestartBackoff, consumerMaxRestarts, "", statsLogInterval);
    }

    /** A builder with every default, for {@code topics} and the Kafka properties (bootstrap, group at least). */
    public static Builder builder(List<String> topics, Map<String, ?> kafka) {
        return new Builder(topics, kafka);
    }

    /**
     * Reads a settings file's entries: {@code runtime.topics} (comma-separated), {@code runtime.kafka.*} (consumer
     * properties) and {@code runtime.<component>} for every other component, durations in ISO-8601 or milliseconds.
     * Keys that are absent take their defaults.
     */
    public static RuntimeConfig from(Map<String, String> settings) {
        Map<String, Object> kafka = new HashMap<>();
        settings.forEach((k, v) -> {
            if (k.startsWith(KAFKA_PREFIX)) {
                kafka.put(k.substring(KAFKA_PREFIX.length()), v);
            }
        });
        String topics = settings.getOrDefault(PREFIX + "topics", "");
        Builder b = builder(List.of(topics.split("\\s*,\\s*")), kafka);
        SettingsReader reader = SettingsReader.of(settings);
        for (Setting<?> setting : SETTINGS) {
            b.read(reader, setting);
        }
        return b.build();
    }

    /** Kafka properties whose values {@link #toString()} shows; every other value is masked (it may be a secret). */
    private static final java.util.Set<String> SHOWN_KAFKA_VALUES = java.util.Set.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConsumerConfig.GROUP_ID_CONFIG, ConsumerConfig.CLIENT_ID_CONFIG,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
            ConsumerConfig.MAX_POLL_RECORDS_CONFIG, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG, "security.protocol",
            "sasl.mechanism");

    /**
     * The settings with every Kafka property value masked except a few that are never secret (bootstrap servers,
     * group id, …): {@code sasl.jaas.config}, passwords, keys and whatever else a property may hold never appear in
     * logs.
     */
    @Override
    public String toString() {
        return ConfigText.describe(this, SHOWN_KAFKA_VALUES);
    }

    /** The group id, from {@link #kafka()}. */
    public String groupId() {
        return kafka.get(ConsumerConfig.GROUP_ID_CONFIG).toString();
    }

    private static void requireKafka(Map<String, Object> kafka, String key) {
        Object value = kafka.get(key);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException("kafka " + key + " is required");
        }
    }

    /** Builds a {@link RuntimeConfig}; starts from the defaults, validated by {@link #build()}. */
    public static final class Builder {
        private final List<String> topics;
        private final Map<String, Object> kafka;
        private final Map<Setting<?>, Object> values = new HashMap<>();

        private Builder(List<String> topics, Map<String, ?> kafka) {
            this.topics = List.copyOf(topics);
            this.kafka = new HashMap<>(kafka);
        }

        /** Sets one of {@link #SETTINGS}. */
        public <T> Builder set(Setting<T> setting, T value) {
            values.put(setting, value);
            return this;
        }

        /**
         * Sets {@code setting} to what {@code reader} gives for it: its value, else the default of this declaration
         * (a service may redeclare a runtime setting with a default of its own).
         */
        public <T> Builder read(SettingsReader reader, Setting<T> setting) {
            return set(setting, reader.get(setting));
        }

        @SuppressWarnings("unchecked") // set(Setting<T>, T) is the only writer
        private <T> T value(Setting<T> setting) {
            return values.containsKey(setting) ? (T) values.get(setting) : setting.defaultOrFail();
        }

        public Builder consumerThreads(int value) {
            return set(CONSUMER_THREADS, value);
        }

        public Builder lanes(int value) {
            return set(LANES, value);
        }

        public Builder keyAssignment(KeyAssignment value) {
            return set(KEY_ASSIGNMENT, value);
        }

        public Builder laneCapacity(int value) {
            return set(LANE_CAPACITY, value);
        }

        public Builder delayQueueCapacity(int value) {
            return set(DELAY_QUEUE_CAPACITY, value);
        }

        public Builder maxInFlightPerPartition(int value) {
            return set(MAX_IN_FLIGHT_PER_PARTITION, value);
        }

        public Builder maxAttempts(int value) {
            return set(MAX_ATTEMPTS, value);
        }

        public Builder initialBackoff(Duration value) {
            return set(INITIAL_BACKOFF, value);
        }

        public Builder maxBackoff(Duration value) {
            return set(MAX_BACKOFF, value);
        }

        public Builder backoffMultiplier(double value) {
            return set(BACKOFF_MULTIPLIER, value);
        }

        public Builder jitter(double value) {
            return set(JITTER, value);
        }

        public Builder processingTimeout(Duration value) {
            return set(PROCESSING_TIMEOUT, value);
        }

        public Builder commitInterval(Duration value) {
            return set(COMMIT_INTERVAL, value);
        }

        public Builder pollTimeout(Duration value) {
            return set(POLL_TIMEOUT, value);
        }

        public Builder revokeTimeout(Duration value) {
            return set(REVOKE_TIMEOUT, value);
        }

        public Builder closeTimeout(Duration value) {
            return set(CLOSE_TIMEOUT, value);
        }

        public Builder maxCallsPerLane(int value) {
            return set(MAX_CALLS_PER_LANE, value);
        }

        public Builder maxCalls(int value) {
            return set(MAX_CALLS, value);
        }

        public Builder maxBufferedBytes(long value) {
            return set(MAX_BUFFERED_BYTES, value);
        }

        public Builder consumerRestartBackoff(Duration value) {
            return set(CONSUMER_RESTART_BACKOFF, value);
        }

        public Builder consumerMaxRestarts(int value) {
            return set(CONSUMER_MAX_RESTARTS, value);
        }

        public Builder groupInstanceId(String value) {
            return set(GROUP_INSTANCE_ID, value);
        }

        public Builder statsLogInterval(Duration value) {
            return set(STATS_LOG_INTERVAL, value);
        }

        /** Sets one Kafka consumer property. */
        public Builder kafka(String key, Object value) {
            this.kafka.put(key, value);
            return this;
        }

        public RuntimeConfig build() {
            return new RuntimeConfig(topics, kafka, value(CONSUMER_THREADS), value(LANES), value(KEY_ASSIGNMENT),
                    value(LANE_CAPACITY), value(DELAY_QUEUE_CAPACITY), value(MAX_IN_FLIGHT_PER_PARTITION),
                    value(MAX_ATTEMPTS), value(INITIAL_BACKOFF), value(MAX_BACKOFF), value(BACKOFF_MULTIPLIER),
                    value(JITTER), value(PROCESSING_TIMEOUT), value(COMMIT_INTERVAL), value(POLL_TIMEOUT),
                    value(REVOKE_TIMEOUT), value(CLOSE_TIMEOUT), value(MAX_CALLS_PER_LANE), value(MAX_CALLS),
                    value(MAX_BUFFERED_BYTES), value(CONSUMER_RESTART_BACKOFF), value(CONSUMER_MAX_RESTARTS),
                    value(GROUP_INSTANCE_ID), value(STATS_LOG_INTERVAL));
        }
    }
}
