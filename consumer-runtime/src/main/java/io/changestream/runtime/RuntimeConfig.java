package io.changestream.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;

/**
 * Settings of a {@link ConsumerRuntime}, validated at construction (the message names the setting). Every bound of
 * the runtime is one of these; the defaults are the {@code DEFAULT_*} constants. Two ways to build one: {@link #from}
 * reads the {@code runtime.*} keys of a settings file, {@link #builder} is the explicit form for code and tests.
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
 * @param consumerThreads         consumer threads, each owning one KafkaConsumer of the group; useful up to the
 *                                partition count. Default 1.
 * @param lanes                   KeyBy lanes, each a FIFO with one processor thread. Default 16.
 * @param keyAssignment           how routing keys map to lanes. Default {@link KeyAssignment#LEAST_LOADED}.
 * @param laneCapacity            events one lane may hold; a full lane pauses the partitions feeding it. Default 1,000.
 * @param delayQueueCapacity      events that may wait (retry backoff, not-before times, and the later events of their
 *                                keys) before every partition is paused. The hard bound is this plus
 *                                {@code lanes * laneCapacity}. Default 10,000.
 * @param maxInFlightPerPartition offsets of one partition taken in and not yet committable (done ones behind an older
 *                                unfinished one count) before that partition is paused. Default 100,000.
 * @param maxAttempts             attempts per event, the first included, before retries are exhausted. Default 5.
 * @param initialBackoff          delay before the first retry. Default 1 s.
 * @param maxBackoff              longest retry delay. Default 60 s.
 * @param backoffMultiplier       growth of the delay per attempt, at least 1. Default 2.
 * @param jitter                  random spread of each delay, {@code delay * (1 ± jitter)}, in [0, 1). Default 0.2.
 * @param processingTimeout       longest one attempt may run; past it the thread is interrupted and the event fails
 *                                without retry. Default 30 s.
 * @param commitInterval          how often each consumer thread commits. Default 1 s.
 * @param pollTimeout             longest one poll blocks (also how late a commit may be). Default 100 ms.
 * @param revokeTimeout           how long a revoke waits for the revoked partitions' taken-in events before dropping
 *                                the rest; below {@code max.poll.interval.ms}. Default 10 s.
 * @param closeTimeout            bound of {@link ConsumerRuntime#close()} and of the SIGTERM drain. Default 30 s.
 * @param maxCallsPerLane         {@link AsyncProcessor} calls one lane may have running at once (each for a different
 *                                key); a synchronous {@link Processor} always has one. Default 64.
 * @param maxCalls                {@link AsyncProcessor} calls the whole runtime may have running at once. Default
 *                                1,024.
 * @param maxBufferedBytes        serialized key + value bytes of the records taken in and not done yet (queued, running,
 *                                parked, held back) before every partition is paused; resumes below 90 %. Default
 *                                256 MiB.
 * @param consumerRestartBackoff  first delay before a consumer thread that died is started again; doubles per
 *                                consecutive failure up to 32 times this. Default 1 s.
 * @param consumerMaxRestarts     consecutive restarts of one consumer thread (each within a minute of the last) before
 *                                the runtime gives up and reports itself not live. Default 5.
 * @param groupInstanceId         static group membership: empty (the default) for none; otherwise consumer thread
 *                                {@code i} joins with {@code group.instance.id = <groupInstanceId>-<i>}, and the value
 *                                {@value #HOST_NAME} stands for this host's name. Each instance of a group needs its
 *                                own (a second member with the same id fences the first). A static member does not
 *                                leave the group when it stops: its partitions wait for it up to the session timeout
 *                                (decision 2602).
 * @param statsLogInterval        how often the runtime logs one INFO line of throughput and memory (records polled and
 *                                done per second, the deepest lane and the key with the most events waiting, the delay
 *                                queue, buffered bytes, heap); zero for none. Default 1 min.
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

    public static final int DEFAULT_CONSUMER_THREADS = 1;
    public static final int DEFAULT_LANES = 16;
    public static final KeyAssignment DEFAULT_KEY_ASSIGNMENT = KeyAssignment.LEAST_LOADED;
    public static final int DEFAULT_LANE_CAPACITY = 1_000;
    public static final int DEFAULT_DELAY_QUEUE_CAPACITY = 10_000;
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_PARTITION = 100_000;
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(60);
    public static final double DEFAULT_BACKOFF_MULTIPLIER = 2.0;
    public static final double DEFAULT_JITTER = 0.2;
    public static final Duration DEFAULT_PROCESSING_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);
    public static final Duration DEFAULT_REVOKE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_CALLS_PER_LANE = 64;
    public static final int DEFAULT_MAX_CALLS = 1_024;
    public static final long DEFAULT_MAX_BUFFERED_BYTES = 256L * 1024 * 1024;
    public static final Duration DEFAULT_CONSUMER_RESTART_BACKOFF = Duration.ofSeconds(1);
    public static final int DEFAULT_CONSUMER_MAX_RESTARTS = 5;
    /** {@code session.timeout.ms} on the classic protocol when the Kafka properties leave it out (decision 2602). */
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 6_000;
    /** {@code heartbeat.interval.ms} on the classic protocol when the Kafka properties leave it out. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 1_000;
    /** No static membership. */
    public static final String DEFAULT_GROUP_INSTANCE_ID = "";
    public static final Duration DEFAULT_STATS_LOG_INTERVAL = Duration.ofMinutes(1);
    /** The {@code groupInstanceId} that stands for this host's name ({@code HOSTNAME}, else the resolver's). */
    public static final String HOST_NAME = "${HOSTNAME}";

    /** Prefix of the keys {@link #from} reads; Kafka properties are read from {@code runtime.kafka.*}. */
    public static final String PREFIX = "runtime.";
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
        positive("consumerThreads", consumerThreads, 1024);
        positive("lanes", lanes, 4096);
        Objects.requireNonNull(keyAssignment, "keyAssignment");
        positive("laneCapacity", laneCapacity, 1 << 24);
        positive("delayQueueCapacity", delayQueueCapacity, 1 << 24);
        positive("maxInFlightPerPartition", maxInFlightPerPartition, 1 << 28);
        positive("maxAttempts", maxAttempts, 1_000);
        positive("initialBackoff", initialBackoff);
        positive("maxBackoff", maxBackoff);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoff must be at least initialBackoff (" + initialBackoff + "), was " + maxBackoff);
        }
        if (!(backoffMultiplier >= 1.0 && backoffMultiplier <= 100.0)) {
            throw new IllegalArgumentException("backoffMultiplier must be between 1 and 100, was " + backoffMultiplier);
        }
        if (!(jitter >= 0.0 && jitter < 1.0)) {
            throw new IllegalArgumentException("jitter must be in [0, 1), was " + jitter);
        }
        positive("processingTimeout", processingTimeout);
        positive("commitInterval", commitInterval);
        positive("pollTimeout", pollTimeout);
        positive("revokeTimeout", revokeTimeout);
        positive("closeTimeout", closeTimeout);
        positive("maxCallsPerLane", maxCallsPerLane, 1 << 16);
        positive("maxCalls", maxCalls, 1 << 20);
        if (maxBufferedBytes < 1024) {
            throw new IllegalArgumentException("maxBufferedBytes must be at least 1024, was " + maxBufferedBytes);
        }
        positive("consumerRestartBackoff", consumerRestartBackoff);
        if (consumerMaxRestarts < 0 || consumerMaxRestarts > 1_000) {
            throw new IllegalArgumentException("consumerMaxRestarts must be between 0 and 1000, was "
                    + consumerMaxRestarts);
        }
        Objects.requireNonNull(groupInstanceId, "groupInstanceId");
        groupInstanceId = groupInstanceId.strip();
        if (!groupInstanceId.isEmpty() && !groupInstanceId.matches("[A-Za-z0-9._${}-]{1,200}")) {
            throw new IllegalArgumentException("groupInstanceId must be letters, digits, '.', '_' or '-' (at most 200), "
                    + "or " + HOST_NAME + ", was '" + groupInstanceId + "'");
        }
        Objects.requireNonNull(statsLogInterval, "statsLogInterval");
        if (statsLogInterval.isNegative() || (!statsLogInterval.isZero() && statsLogInterval.toMillis() < 1_000)) {
            throw new IllegalArgumentException("statsLogInterval must be zero (no stats line) or at least 1 s, was "
                    + statsLogInterval);
        }
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
        Reader r = new Reader(settings);
        return b.consumerThreads(r.get("consumerThreads", Integer::parseInt, DEFAULT_CONSUMER_THREADS))
                .lanes(r.get("lanes", Integer::parseInt, DEFAULT_LANES))
                .keyAssignment(r.get("keyAssignment", KeyAssignment::valueOf, DEFAULT_KEY_ASSIGNMENT))
                .laneCapacity(r.get("laneCapacity", Integer::parseInt, DEFAULT_LANE_CAPACITY))
                .delayQueueCapacity(r.get("delayQueueCapacity", Integer::parseInt, DEFAULT_DELAY_QUEUE_CAPACITY))
                .maxInFlightPerPartition(r.get("maxInFlightPerPartition", Integer::parseInt,
                        DEFAULT_MAX_IN_FLIGHT_PER_PARTITION))
                .maxAttempts(r.get("maxAttempts", Integer::parseInt, DEFAULT_MAX_ATTEMPTS))
                .initialBackoff(r.get("initialBackoff", Reader::duration, DEFAULT_INITIAL_BACKOFF))
                .maxBackoff(r.get("maxBackoff", Reader::duration, DEFAULT_MAX_BACKOFF))
                .backoffMultiplier(r.get("backoffMultiplier", Double::parseDouble, DEFAULT_BACKOFF_MULTIPLIER))
                .jitter(r.get("jitter", Double::parseDouble, DEFAULT_JITTER))
                .processingTimeout(r.get("processingTimeout", Reader::duration, DEFAULT_PROCESSING_TIMEOUT))
                .commitInterval(r.get("commitInterval", Reader::duration, DEFAULT_COMMIT_INTERVAL))
                .pollTimeout(r.get("pollTimeout", Reader::duration, DEFAULT_POLL_TIMEOUT))
                .revokeTimeout(r.get("revokeTimeout", Reader::duration, DEFAULT_REVOKE_TIMEOUT))
                .closeTimeout(r.get("closeTimeout", Reader::duration, DEFAULT_CLOSE_TIMEOUT))
                .maxCallsPerLane(r.get("maxCallsPerLane", Integer::parseInt, DEFAULT_MAX_CALLS_PER_LANE))
                .maxCalls(r.get("maxCalls", Integer::parseInt, DEFAULT_MAX_CALLS))
                .maxBufferedBytes(r.get("maxBufferedBytes", Long::parseLong, DEFAULT_MAX_BUFFERED_BYTES))
                .consumerRestartBackoff(r.get("consumerRestartBackoff", Reader::duration,
                        DEFAULT_CONSUMER_RESTART_BACKOFF))
                .consumerMaxRestarts(r.get("consumerMaxRestarts", Integer::parseInt, DEFAULT_CONSUMER_MAX_RESTARTS))
                .groupInstanceId(r.get("groupInstanceId", Function.identity(), DEFAULT_GROUP_INSTANCE_ID))
                .statsLogInterval(r.get("statsLogInterval", Reader::duration, DEFAULT_STATS_LOG_INTERVAL))
                .build();
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
     * group id, …): {@code sasl.jaas.config}, passwords and keys never appear in logs.
     */
    @Override
    public String toString() {
        Map<String, Object> shown = new java.util.TreeMap<>();
        kafka.forEach((k, v) -> shown.put(k, SHOWN_KAFKA_VALUES.contains(k) ? v : "****"));
        return "RuntimeConfig[topics=" + topics + ", kafka=" + shown + ", consumerThreads=" + consumerThreads
                + ", lanes=" + lanes + ", keyAssignment=" + keyAssignment + ", laneCapacity=" + laneCapacity
                + ", delayQueueCapacity=" + delayQueueCapacity + ", maxInFlightPerPartition=" + maxInFlightPerPartition
                + ", maxAttempts=" + maxAttempts + ", initialBackoff=" + initialBackoff + ", maxBackoff=" + maxBackoff
                + ", backoffMultiplier=" + backoffMultiplier + ", jitter=" + jitter + ", processingTimeout="
                + processingTimeout + ", commitInterval=" + commitInterval + ", pollTimeout=" + pollTimeout
                + ", revokeTimeout=" + revokeTimeout + ", closeTimeout=" + closeTimeout + ", maxCallsPerLane="
                + maxCallsPerLane + ", maxCalls=" + maxCalls + ", maxBufferedBytes=" + maxBufferedBytes
                + ", consumerRestartBackoff=" + consumerRestartBackoff + ", consumerMaxRestarts=" + consumerMaxRestarts
                + ", groupInstanceId=" + groupInstanceId + ", statsLogInterval=" + statsLogInterval + "]";
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

    private static void positive(String setting, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(setting + " must be between 1 and " + max + ", was " + value);
        }
    }

    private static void positive(String setting, Duration value) {
        Objects.requireNonNull(value, setting);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(setting + " must be positive, was " + value);
        }
    }

    /** Parses one {@code runtime.*} entry, naming the key when it does not parse. */
    private record Reader(Map<String, String> settings) {
        <T> T get(String name, Function<String, T> parse, T fallback) {
            String raw = settings.get(PREFIX + name);
            if (raw == null || raw.isBlank()) {
                return fallback;
            }
            try {
                return parse.apply(raw.trim());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(PREFIX + name + " does not parse: '" + raw + "'", e);
            }
        }

        static Duration duration(String raw) {
            return Character.isDigit(raw.charAt(0)) ? Duration.ofMillis(Long.parseLong(raw)) : Duration.parse(raw);
        }
    }

    /** Builds a {@link RuntimeConfig}; starts from the defaults, validated by {@link #build()}. */
    public static final class Builder {
        private final List<String> topics;
        private final Map<String, Object> kafka;
        private int consumerThreads = DEFAULT_CONSUMER_THREADS;
        private int lanes = DEFAULT_LANES;
        private KeyAssignment keyAssignment = DEFAULT_KEY_ASSIGNMENT;
        private int laneCapacity = DEFAULT_LANE_CAPACITY;
        private int delayQueueCapacity = DEFAULT_DELAY_QUEUE_CAPACITY;
        private int maxInFlightPerPartition = DEFAULT_MAX_IN_FLIGHT_PER_PARTITION;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private double backoffMultiplier = DEFAULT_BACKOFF_MULTIPLIER;
        private double jitter = DEFAULT_JITTER;
        private Duration processingTimeout = DEFAULT_PROCESSING_TIMEOUT;
        private Duration commitInterval = DEFAULT_COMMIT_INTERVAL;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private Duration revokeTimeout = DEFAULT_REVOKE_TIMEOUT;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private int maxCallsPerLane = DEFAULT_MAX_CALLS_PER_LANE;
        private int maxCalls = DEFAULT_MAX_CALLS;
        private long maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
        private Duration consumerRestartBackoff = DEFAULT_CONSUMER_RESTART_BACKOFF;
        private int consumerMaxRestarts = DEFAULT_CONSUMER_MAX_RESTARTS;
        private String groupInstanceId = DEFAULT_GROUP_INSTANCE_ID;
        private Duration statsLogInterval = DEFAULT_STATS_LOG_INTERVAL;

        private Builder(List<String> topics, Map<String, ?> kafka) {
            this.topics = List.copyOf(topics);
            this.kafka = new HashMap<>(kafka);
        }

        public Builder consumerThreads(int value) {
            this.consumerThreads = value;
            return this;
        }

        public Builder lanes(int value) {
            this.lanes = value;
            return this;
        }

        public Builder keyAssignment(KeyAssignment value) {
            this.keyAssignment = value;
            return this;
        }

        public Builder laneCapacity(int value) {
            this.laneCapacity = value;
            return this;
        }

        public Builder delayQueueCapacity(int value) {
            this.delayQueueCapacity = value;
            return this;
        }

        public Builder maxInFlightPerPartition(int value) {
            this.maxInFlightPerPartition = value;
            return this;
        }

        public Builder maxAttempts(int value) {
            this.maxAttempts = value;
            return this;
        }

        public Builder initialBackoff(Duration value) {
            this.initialBackoff = value;
            return this;
        }

        public Builder maxBackoff(Duration value) {
            this.maxBackoff = value;
            return this;
        }

        public Builder backoffMultiplier(double value) {
            this.backoffMultiplier = value;
            return this;
        }

        public Builder jitter(double value) {
            this.jitter = value;
            return this;
        }

        public Builder processingTimeout(Duration value) {
            this.processingTimeout = value;
            return this;
        }

        public Builder commitInterval(Duration value) {
            this.commitInterval = value;
            return this;
        }

        public Builder pollTimeout(Duration value) {
            this.pollTimeout = value;
            return this;
        }

        public Builder revokeTimeout(Duration value) {
            this.revokeTimeout = value;
            return this;
        }

        public Builder closeTimeout(Duration value) {
            this.closeTimeout = value;
            return this;
        }

        public Builder maxCallsPerLane(int value) {
            this.maxCallsPerLane = value;
            return this;
        }

        public Builder maxCalls(int value) {
            this.maxCalls = value;
            return this;
        }

        public Builder maxBufferedBytes(long value) {
            this.maxBufferedBytes = value;
            return this;
        }

        public Builder consumerRestartBackoff(Duration value) {
            this.consumerRestartBackoff = value;
            return this;
        }

        public Builder consumerMaxRestarts(int value) {
            this.consumerMaxRestarts = value;
            return this;
        }

        public Builder groupInstanceId(String value) {
            this.groupInstanceId = value;
            return this;
        }

        public Builder statsLogInterval(Duration value) {
            this.statsLogInterval = value;
            return this;
        }

        /** Sets one Kafka consumer property. */
        public Builder kafka(String key, Object value) {
            this.kafka.put(key, value);
            return this;
        }

        public RuntimeConfig build() {
            return new RuntimeConfig(topics, kafka, consumerThreads, lanes, keyAssignment, laneCapacity,
                    delayQueueCapacity,
                    maxInFlightPerPartition, maxAttempts, initialBackoff, maxBackoff, backoffMultiplier, jitter,
                    processingTimeout, commitInterval, pollTimeout, revokeTimeout, closeTimeout, maxCallsPerLane,
                    maxCalls, maxBufferedBytes, consumerRestartBackoff, consumerMaxRestarts, groupInstanceId,
                    statsLogInterval);
        }
    }
}
