package io.changestream.cdc;

import io.changestream.cdc.transform.Settings;
import io.changestream.cdc.transform.TransformSettings;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Everything the connector needs, read from a properties file and then overridden by environment variables
 * ({@code CS_CDC_DATABASE_PASSWORD} overrides {@code database.password}: prefix {@value #ENV_PREFIX}, upper case,
 * dots as underscores). Every setting, its default and its bounds are listed in cdc-connector/README.md; a bad or
 * unknown setting fails at start with a message naming it; any other {@code kafka.<property>} is a Kafka client property
 * passed to every client ({@link Kafka#client()}). Immutable; {@link #toString()} never shows the password or a secret
 * client property.
 *
 * @param database  the source database
 * @param kafka     the target cluster
 * @param capture   Debezium engine, slot, snapshot and lifecycle settings
 * @param standby   the MariaDB lease (one active reader)
 * @param http      health and metrics endpoint
 * @param transform row → envelope mapping (filters, masks, bounds)
 */
public record CdcConfig(Database database, Kafka kafka, Capture capture, Standby standby, Http http,
                        TransformSettings transform) {

    /** Upper bound of {@code max.row.bytes}: envelopes must fit Kafka's default 1 MiB record limit. */
    public static final int MAX_RECORD_BYTES = 1_000_000;

    /** Prefix of environment variables that override settings. */
    public static final String ENV_PREFIX = "CS_CDC_";

    public CdcConfig {
        require(database != null, "database settings are required");
        require(kafka != null, "kafka settings are required");
        require(capture != null, "capture settings are required");
        require(standby != null, "standby settings are required");
        require(http != null, "http settings are required");
        require(transform != null, "transform settings are required");
    }

    /** Reads the file, applies the environment overrides and validates everything. */
    public static CdcConfig load(Path file, Map<String, String> environment) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new CdcException("cannot read the cdc-connector config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> values = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
        environment.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX)) {
                values.put(name.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.'), value);
            }
        });
        return fromMap(values);
    }

    /** Builds and validates a config from flat keys; unknown keys are refused. */
    public static CdcConfig fromMap(Map<String, String> values) {
        return from(new Settings(values));
    }

    /** Builds from {@code s}; afterwards {@link Settings#declared()} lists every key read (the README reference). */
    static CdcConfig from(Settings s) {
        String instanceId = s.derived("instance.id", Standby.DERIVED_INSTANCE_ID);
        instanceId = instanceId == null ? Standby.defaultInstanceId() : instanceId;
        Database database = Database.from(s, instanceId);
        boolean postgres = database.isPostgres();
        CdcConfig config = new CdcConfig(database,
                new Kafka(s.required("kafka.bootstrap.servers"),
                        (short) s.integer("kafka.replication.factor", 3, 1, Short.MAX_VALUE),
                        s.bool("kafka.create.topics", true),
                        s.number("kafka.ack.timeout.ms", 30_000, 1_000, 600_000),
                        s.integer("kafka.linger.ms", 0, 0, 1_000),
                        s.number("topic.pipeline.status.min.compaction.lag.ms",
                                TopicCatalog.DEFAULT_STATUS_MIN_COMPACTION_LAG.toMillis(), 0, Long.MAX_VALUE),
                        s.remainingWithPrefix(Kafka.PREFIX)),
                new Capture(s.string("connector.name", "changestream-cdc"),
                        s.oneOf("snapshot.mode", "no_data", "no_data", "never", "initial"),
                        s.string("postgres.slot.name", "changestream_cdc"),
                        s.string("postgres.publication.name", "changestream_cdc"),
                        s.bool("postgres.slot.drop.on.stop", false),
                        s.integer("postgres.slot.max.retries", 6, 0, 1_000_000),
                        s.number("postgres.slot.retry.delay.ms", 1_000, 10, 600_000),
                        s.number("heartbeat.interval.ms", 5_000, 0, 3_600_000),
                        s.number("poll.interval.ms", 10, 1, 60_000),
                        s.integer("max.batch.size", 2_048, 1, 1_000_000),
                        s.integer("max.queue.size", 8_192, 2, 10_000_000),
                        s.number("offset.flush.interval.ms", 1_000, 0, 3_600_000),
                        new Backoff(s.number("restart.backoff.ms", 500, 10, 600_000),
                                s.number("restart.backoff.max.ms", 30_000, 10, 3_600_000),
                                s.integer("restart.backoff.jitter.percent", 20, 0, 100)),
                        s.integer("thread.max.restarts", 10, 0, 1_000_000),
                        s.number("shutdown.timeout.ms", 8_000, 100, 600_000),
                        s.number("max.queue.bytes", 64L << 20, 0, Long.MAX_VALUE)),
                new Standby(s.bool("lease.enabled", !postgres),
                        s.integer("lease.session.timeout.ms", 6_000, 1_000, 600_000),
                        s.number("lease.poll.interval.ms", 500, 10, 60_000), instanceId),
                new Http(s.string("http.host", "0.0.0.0"), s.integer("http.port", 8090, 0, 65_535)),
                TransformSettings.from(s).markingSkipped());
        s.refuseUnknown();
        if (config.transform().maxRowBytes() > MAX_RECORD_BYTES) {
            throw new CdcException("setting max.row.bytes must be <= " + MAX_RECORD_BYTES + " (the producer's and "
                    + "broker's default 1 MiB record limit, minus headers), was " + config.transform().maxRowBytes());
        }
        return config;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new CdcException(message);
        }
    }

    /**
     * The source database.
     *
     * @param kind     {@code postgres} or {@code mariadb} (also for MySQL-compatible servers the MariaDB connector
     *                 reads)
     * @param host     host name ({@code database.host}, default localhost)
     * @param port     port ({@code database.port}, default 5432 / 3306)
     * @param name     database ({@code database.name}, required)
     * @param schema   Postgres schema of the tables ({@code database.schema}, default public; unused on MariaDB)
     * @param user     user with replication rights ({@code database.user}, required)
     * @param password secret ({@code database.password}, default empty); never logged
     * @param serverId MariaDB replica server id, unique in the replication topology ({@code database.server.id};
     *                 default derived from {@code instance.id}, so two standbys never share one)
     * @param checkPrerequisites check the server's settings and the user's grants before each engine run and refuse
     *                 to start the engine while one is missing ({@code database.prerequisites.check}, true)
     */
    public record Database(String kind, String host, int port, String name, String schema, String user,
                           String password, long serverId, boolean checkPrerequisites) {

        public Database {
            require("postgres".equals(kind) || "mariadb".equals(kind),
                    "setting database.kind must be postgres or mariadb, was '" + kind + "'");
            require(host != null && !host.isBlank(), "setting database.host must not be blank");
            require(port > 0 && port < 65_536, "setting database.port must be in [1, 65535], was " + port);
            require(name != null && !name.isBlank(), "setting database.name is required");
            require(schema != null && !schema.isBlank(), "setting database.schema must not be blank");
            require(user != null && !user.isBlank(), "setting database.user is required");
            password = password == null ? "" : password;
            require(serverId > 0 && serverId <= 4_294_967_295L,
                    "setting database.server.id must be in [1, 4294967295], was " + serverId);
        }

        /** Shown as the default of {@code database.server.id} (README). */
        static final String DERIVED_SERVER_ID = "(derived from instance.id)";

        /** The lowest derived server id (ids below stay free for the database servers themselves). */
        static final long FIRST_DERIVED_SERVER_ID = 10_000;

        static Database from(Settings s, String instanceId) {
            String kind = s.oneOf("database.kind", "postgres", "postgres", "mariadb");
            String host = s.string("database.host", "localhost");
            int port = s.integer("database.port", "postgres".equals(kind) ? 5432 : 3306, 1, 65_535);
            String name = s.required("database.name");
            String schema = s.string("database.schema", "public");
            String user = s.required("database.user");
            String password = s.string("database.password", "");
            Long serverId = s.optionalNumber("database.server.id", DERIVED_SERVER_ID, 1, 4_294_967_295L);
            boolean checkPrerequisites = s.bool("database.prerequisites.check", true);
            return new Database(kind, host, port, name, schema, user, password,
                    serverId == null ? derivedServerId(instanceId) : serverId, checkPrerequisites);
        }

        /**
         * A MariaDB replica id unique per instance without configuration: {@value #FIRST_DERIVED_SERVER_ID} + the
         * CRC-32 of the instance id, folded into the 32-bit id space (two standbys must not share an id: the server
         * disconnects the older of two replicas with one id).
         */
        static long derivedServerId(String instanceId) {
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(instanceId.getBytes(StandardCharsets.UTF_8));
            return FIRST_DERIVED_SERVER_ID + crc.getValue() % (4_294_967_295L - FIRST_DERIVED_SERVER_ID + 1);
        }

        public boolean isPostgres() {
            return "postgres".equals(kind);
        }

        /** The schema (Postgres) or database (MariaDB) that holds the captured tables. */
        public String tableContainer() {
            return isPostgres() ? schema : name;
        }

        @Override
        public String toString() {
            return "Database[kind=" + kind + ", host=" + host + ", port=" + port + ", name=" + name + ", schema="
                    + schema + ", user=" + user + ", password=" + (password.isEmpty() ? "(none)" : "******")
                    + ", serverId=" + serverId + ", checkPrerequisites=" + checkPrerequisites + "]";
        }
    }

    /**
     * The Kafka cluster the envelopes, offsets and schema history go to, and how every client reaches it.
     *
     * @param bootstrapServers  {@code kafka.bootstrap.servers} (required)
     * @param replicationFactor of topics this connector creates ({@code kafka.replication.factor}, 3)
     * @param createTopics      create missing topics at start ({@code kafka.create.topics}, true)
     * @param ackTimeoutMs      how long a batch may wait for its acks before the engine restarts
     *                          ({@code kafka.ack.timeout.ms}, 30000)
     * @param lingerMs          producer {@code linger.ms} ({@code kafka.linger.ms}, 0: latency first); the producer's
     *                          {@code delivery.timeout.ms} is the ack timeout and its {@code request.timeout.ms} is
     *                          {@code min(30000, ackTimeoutMs - lingerMs)}, so Kafka's rule
     *                          {@code delivery >= linger + request} always holds
     * @param statusMinCompactionLagMs {@code min.compaction.lag.ms} of {@code pipeline-status}
     *                          ({@code topic.pipeline.status.min.compaction.lag.ms}, 7 days): a group lagging less
     *                          than this still reads every intermediate run state
     * @param client            every other {@code kafka.<property>}: a Kafka client property ({@code security.protocol},
     *                          {@code sasl.*}, {@code ssl.*}, …) given to every client — the producer, the topic
     *                          admin, the lease consumer and the Debezium engine's offset store and schema history;
     *                          the connector's own client settings (acks, idempotence, serializers, group ids) win
     */
    public record Kafka(String bootstrapServers, short replicationFactor, boolean createTopics, long ackTimeoutMs,
                        int lingerMs, long statusMinCompactionLagMs, Map<String, String> client) {

        /** Prefix of the Kafka settings in the config file ({@code CS_CDC_KAFKA_} in the environment). */
        public static final String PREFIX = "kafka.";

        /** Shown instead of a secret client property. */
        public static final String MASK = "******";

        /** The smallest producer {@code request.timeout.ms} the connector derives. */
        public static final long MIN_REQUEST_TIMEOUT_MS = 1_000;

        /** The producer's {@code request.timeout.ms}: leaves room for {@code linger.ms} in the delivery timeout. */
        public int requestTimeoutMs() {
            return (int) Math.min(30_000, ackTimeoutMs - lingerMs);
        }

        public Kafka {
            require(bootstrapServers != null && !bootstrapServers.isBlank(), "setting kafka.bootstrap.servers is required");
            require(ackTimeoutMs - lingerMs >= MIN_REQUEST_TIMEOUT_MS, "setting kafka.ack.timeout.ms (" + ackTimeoutMs
                    + ") must exceed kafka.linger.ms (" + lingerMs + ") by at least " + MIN_REQUEST_TIMEOUT_MS
                    + " ms: the ack timeout is the producer's delivery.timeout.ms, which Kafka requires to be at "
                    + "least linger.ms + request.timeout.ms");
            require(statusMinCompactionLagMs >= 0, "setting topic.pipeline.status.min.compaction.lag.ms must be >= 0");
            client = Map.copyOf(client == null ? Map.of() : client);
            for (Map.Entry<String, String> e : client.entrySet()) {
                require(e.getKey().matches("[a-z0-9][a-z0-9.-]*"), "setting " + PREFIX + e.getKey()
                        + " is not a Kafka client property name (lower case, dots)");
                require(e.getValue() != null, "setting " + PREFIX + e.getKey() + " has no value");
            }
        }

        /** {@code bootstrap.servers} plus the pass-through client properties: the base of every client's config. */
        public Map<String, Object> clientProperties() {
            Map<String, Object> props = new HashMap<>(client);
            props.put("bootstrap.servers", bootstrapServers);
            return props;
        }

        /** True for a client property whose value must never be printed or logged (JAAS, passwords, keys). */
        public static boolean isSecret(String property) {
            return io.changestream.settings.SecretKeys.isSecret(property);
        }

        /** The pass-through properties with secrets masked, in key order. */
        public Map<String, String> maskedClient() {
            Map<String, String> out = new java.util.TreeMap<>();
            client.forEach((k, v) -> out.put(k, isSecret(k) ? MASK : v));
            return out;
        }

        @Override
        public String toString() {
            return "Kafka[bootstrapServers=" + bootstrapServers + ", replicationFactor=" + replicationFactor
                    + ", createTopics=" + createTopics + ", ackTimeoutMs=" + ackTimeoutMs + ", lingerMs=" + lingerMs
                    + ", statusMinCompactionLagMs=" + statusMinCompactionLagMs + ", client=" + maskedClient() + "]";
        }
    }

    /**
     * Debezium engine settings.
     *
     * @param connectorName        engine name, Debezium {@code topic.prefix} and lease group ({@code connector.name},
     *                             changestream-cdc); instances of one database share it
     * @param snapshotMode         {@code no_data} (from now on; {@code never} is its alias) or {@code initial}
     *                             (backfill existing rows) ({@code snapshot.mode}, no_data)
     * @param slotName             Postgres replication slot ({@code postgres.slot.name}, changestream_cdc)
     * @param publicationName      Postgres publication, created for the captured tables only
     *                             ({@code postgres.publication.name}, changestream_cdc)
     * @param slotDropOnStop       drop the slot on a graceful stop: tests only
     *                             ({@code postgres.slot.drop.on.stop}, false)
     * @param slotMaxRetries       attempts to take a slot another reader holds before the engine restarts
     *                             ({@code postgres.slot.max.retries}, 6)
     * @param slotRetryDelayMs     between those attempts ({@code postgres.slot.retry.delay.ms}, 1000)
     * @param heartbeatIntervalMs  Debezium heartbeats so a quiet table never pins WAL and readiness proves streaming
     *                             (ready = a batch within 3 intervals); 0 = off ({@code heartbeat.interval.ms}, 5000)
     * @param pollIntervalMs       engine poll interval, the floor of latency ({@code poll.interval.ms}, 10)
     * @param maxBatchSize         records per batch ({@code max.batch.size}, 2048)
     * @param maxQueueSize         Debezium's queue ({@code max.queue.size}, 8192; must exceed max.batch.size)
     * @param offsetFlushIntervalMs how often processed offsets are committed to cdc-offsets
     *                             ({@code offset.flush.interval.ms}, 1000)
     * @param restartBackoff       wait before restarting a failed engine (database or broker unreachable) or a dead
     *                             capture/lease thread: exponential with jitter and a cap
     * @param threadMaxRestarts    consecutive restarts of a dying capture or lease thread before {@code /health/live}
     *                             fails ({@code thread.max.restarts}, 10; the count resets once a thread ran longer
     *                             than the backoff cap)
     * @param shutdownTimeoutMs    bound on a graceful stop ({@code shutdown.timeout.ms}, 8000)
     * @param maxQueueBytes        Debezium's queue bound in bytes ({@code max.queue.bytes}, 64 MiB; 0 = count only):
     *                             with {@code max.queue.size} it bounds the memory rows take before the producer,
     *                             whose own buffer is {@code kafka.buffer.memory} (Kafka's default 32 MiB)
     */
    public record Capture(String connectorName, String snapshotMode, String slotName, String publicationName,
                          boolean slotDropOnStop, int slotMaxRetries, long slotRetryDelayMs, long heartbeatIntervalMs,
                          long pollIntervalMs, int maxBatchSize, int maxQueueSize, long offsetFlushIntervalMs,
                          Backoff restartBackoff, int threadMaxRestarts, long shutdownTimeoutMs, long maxQueueBytes) {

        public Capture {
            require(connectorName != null && connectorName.matches("[a-zA-Z0-9_.-]+"),
                    "setting connector.name must match [a-zA-Z0-9_.-]+, was '" + connectorName + "'");
            require(slotName != null && slotName.matches("[a-z0-9_]{1,63}"),
                    "setting postgres.slot.name must match [a-z0-9_]{1,63}, was '" + slotName + "'");
            require(publicationName != null && publicationName.matches("[a-zA-Z0-9_]{1,63}"),
                    "setting postgres.publication.name must match [a-zA-Z0-9_]{1,63}, was '" + publicationName + "'");
            require(maxQueueSize > maxBatchSize, "setting max.queue.size (" + maxQueueSize
                    + ") must be larger than max.batch.size (" + maxBatchSize + ")");
            snapshotMode = "never".equals(snapshotMode) ? "no_data" : snapshotMode;
            require(restartBackoff != null, "restart backoff settings are required");
            require(maxQueueBytes == 0 || maxQueueBytes >= MAX_RECORD_BYTES, "setting max.queue.bytes must be 0 (off) "
                    + "or at least " + MAX_RECORD_BYTES + " (one row of max.row.bytes), was " + maxQueueBytes);
        }
    }

    /**
     * An exponential backoff with jitter and a cap: attempt {@code n} (from 1) waits
     * {@code min(max, initial × 2^(n-1))}, shortened by a random part of up to {@code jitterPercent}% so that
     * instances restarted together do not retry in step.
     *
     * @param initialMs     first wait ({@code restart.backoff.ms}, 500)
     * @param maxMs         cap ({@code restart.backoff.max.ms}, 30000)
     * @param jitterPercent random shortening, 0–100 ({@code restart.backoff.jitter.percent}, 20)
     */
    public record Backoff(long initialMs, long maxMs, int jitterPercent) {

        public Backoff {
            require(initialMs > 0, "setting restart.backoff.ms must be > 0, was " + initialMs);
            require(maxMs >= initialMs, "setting restart.backoff.max.ms (" + maxMs
                    + ") must be >= restart.backoff.ms (" + initialMs + ")");
            require(jitterPercent >= 0 && jitterPercent <= 100,
                    "setting restart.backoff.jitter.percent must be in [0, 100], was " + jitterPercent);
        }

        /** The wait before attempt {@code attempt} (1 = first retry); {@code random} in [0, 1). */
        public long delayMs(int attempt, double random) {
            int doublings = Math.max(0, Math.min(attempt - 1, 62));
            long base = initialMs > (maxMs >> doublings) ? maxMs : Math.min(maxMs, initialMs << doublings);
            return base - (long) (base * (jitterPercent / 100.0) * random);
        }
    }

    /**
     * The lease that keeps a standby from reading while the active instance lives (MariaDB; on Postgres the slot
     * already admits one reader).
     *
     * @param leaseEnabled     hold membership of a one-partition consumer group before reading ({@code lease.enabled},
     *                         true on mariadb, false on postgres)
     * @param sessionTimeoutMs how long a dead holder keeps the lease ({@code lease.session.timeout.ms}, 6000; the
     *                         broker's group.min.session.timeout.ms bounds it from below)
     * @param pollIntervalMs   lease thread poll interval ({@code lease.poll.interval.ms}, 500)
     * @param instanceId       names this instance in the lease group, in the {@code cs.capturer} header of every
     *                         produced record, and (hashed) in the default MariaDB server id ({@code instance.id},
     *                         default {@code <host>-<pid>})
     */
    public record Standby(boolean leaseEnabled, int sessionTimeoutMs, long pollIntervalMs, String instanceId) {

        /** Shown as the default of {@code instance.id} (README). */
        static final String DERIVED_INSTANCE_ID = "<host>-<pid>";

        public Standby {
            require(instanceId != null && instanceId.matches("[A-Za-z0-9_.:-]{1,128}"),
                    "setting instance.id must match [A-Za-z0-9_.:-]{1,128}, was '" + instanceId + "'");
            require(pollIntervalMs < sessionTimeoutMs / 4, "setting lease.poll.interval.ms (" + pollIntervalMs
                    + ") must be below a quarter of lease.session.timeout.ms (" + sessionTimeoutMs + ")");
        }

        /** The heartbeat interval of the lease consumer: a quarter of the session timeout. */
        public int heartbeatIntervalMs() {
            return Math.max(100, sessionTimeoutMs / 4);
        }

        /**
         * How long after the send time of its last successful renewal the holder still trusts its lease: the session
         * timeout minus one heartbeat interval and one poll interval. The coordinator expires the member one session
         * timeout after the last heartbeat it received, and a renewal that got through means the heartbeats sent up
         * to one interval before it did too, so a holder cut off from the coordinator stops before a standby can be
         * given the lease.
         */
        public long validityMs() {
            return sessionTimeoutMs - heartbeatIntervalMs() - pollIntervalMs;
        }

        static String defaultInstanceId() {
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                try {
                    host = java.net.InetAddress.getLocalHost().getHostName();
                } catch (java.io.IOException e) {
                    host = "localhost";
                }
            }
            String id = host.replaceAll("[^A-Za-z0-9_.:-]", "_") + "-" + ProcessHandle.current().pid();
            return id.length() > 128 ? id.substring(id.length() - 128) : id;
        }
    }

    /**
     * The health and metrics endpoint.
     *
     * @param host bind address ({@code http.host}, 0.0.0.0)
     * @param port port; 0 = any free port ({@code http.port}, 8090)
     */
    public record Http(String host, int port) {
    }
}
