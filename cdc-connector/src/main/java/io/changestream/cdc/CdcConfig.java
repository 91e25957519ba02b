package io.changestream.cdc;

import static io.changestream.cdc.CdcSettings.byKind;

import io.changestream.cdc.transform.TransformSettings;
import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingException;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the connector needs, read from a properties file, then overridden by environment variables and system
 * properties (decision 2701: {@code CS_CDC_DATABASE_PASSWORD} or {@code -Dcs.cdc.database.password} override
 * {@code database.password}: prefix {@value #ENV_PREFIX}, upper case, dots as underscores). Every setting is declared
 * once, beside the record it configures ({@link #SETTINGS}: key, default, bounds, meaning); cdc-connector/README.md
 * lists them and {@code ConfigReferenceTest} holds its table to the declarations. A bad or unknown setting fails at
 * start with a {@link CdcException} naming it; any other {@code kafka.<property>} is a Kafka client property passed to
 * every client ({@link Kafka#client()}). Immutable; {@link #toString()} never shows the password or a secret client
 * property.
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

    /** Prefix of environment variables that override settings (system properties: {@code cs.cdc.}). */
    public static final String ENV_PREFIX = "CS_CDC_";

    /** Every declared setting, in the README's order; besides them, {@code kafka.*} client properties pass through. */
    public static final List<Setting<?>> SETTINGS = Setting.all(Database.SETTINGS, Kafka.SETTINGS, Capture.SETTINGS,
            Backoff.SETTINGS, Standby.SETTINGS, Http.SETTINGS, TransformSettings.SETTINGS);

    /** Where an unknown key's error sends the reader. */
    private static final String REFERENCE = "cdc-connector/README.md";

    public CdcConfig {
        check(database != null, "database settings are required");
        check(kafka != null, "kafka settings are required");
        check(capture != null, "capture settings are required");
        check(standby != null, "standby settings are required");
        check(http != null, "http settings are required");
        check(transform != null, "transform settings are required");
        TransformSettings.MAX_ROW_BYTES.require(transform.maxRowBytes() <= MAX_RECORD_BYTES, "must be at most "
                + MAX_RECORD_BYTES + " (the producer's and broker's default 1 MiB record limit, minus headers), was "
                + transform.maxRowBytes());
    }

    /** Reads the file, applies the environment and system property overrides and validates everything. */
    public static CdcConfig load(Path file, Map<String, String> environment) {
        Map<String, String> values;
        try {
            values = SettingsReader.readFile(file);
        } catch (IOException e) {
            throw new CdcException("cannot read the cdc-connector config file " + file + ": " + e.getMessage(), e);
        }
        return from(SettingsReader.layered(values, ENV_PREFIX, environment, System.getProperties(), SETTINGS));
    }

    /** Builds and validates a config from flat keys; unknown keys are refused. */
    public static CdcConfig fromMap(Map<String, String> values) {
        return from(SettingsReader.of(values));
    }

    private static CdcConfig from(SettingsReader s) {
        try {
            String instanceId = s.find(Standby.INSTANCE_ID).orElseGet(Standby::defaultInstanceId);
            Database database = Database.from(s, instanceId);
            CdcConfig config = new CdcConfig(database, Kafka.from(s), Capture.from(s),
                    Standby.from(s, database.isPostgres(), instanceId), Http.from(s),
                    TransformSettings.from(s).markingSkipped());
            s.refuseUnknown(REFERENCE);
            return config;
        } catch (SettingException e) {
            throw new CdcException(e.getMessage(), e);
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new CdcException(message);
        }
    }

    /**
     * The source database.
     *
     * @param kind     {@link #KIND}
     * @param host     {@link #HOST}
     * @param port     {@link #PORT}
     * @param name     {@link #NAME}
     * @param schema   {@link #SCHEMA}
     * @param user     {@link #USER}
     * @param password {@link #PASSWORD}; never logged
     * @param serverId {@link #SERVER_ID}, derived from {@code instance.id} unless set ({@link #derivedServerId})
     * @param checkPrerequisites {@link #PREREQUISITES_CHECK}
     */
    public record Database(String kind, String host, int port, String name, String schema, String user,
                           String password, long serverId, boolean checkPrerequisites) {

        /** {@code database.kind} of PostgreSQL. */
        public static final String POSTGRES = "postgres";
        /** {@code database.kind} of MariaDB (and the MySQL-compatible servers its connector reads). */
        public static final String MARIADB = "mariadb";
        /** The default port on {@value #POSTGRES}. */
        public static final int POSTGRES_PORT = 5432;
        /** The default port on {@value #MARIADB}. */
        public static final int MARIADB_PORT = 3306;
        /** The lowest derived server id (ids below stay free for the database servers themselves). */
        static final long FIRST_DERIVED_SERVER_ID = 10_000;
        /** The highest MariaDB server id (32 bits). */
        static final long MAX_SERVER_ID = 4_294_967_295L;

        public static final Setting<String> KIND = Setting.oneOf("database.kind", POSTGRES, MARIADB)
                .defaultsTo(POSTGRES).doc("postgres or mariadb (MySQL-compatible)");
        public static final Setting<String> HOST = Setting.string("database.host").notBlank().defaultsTo("localhost")
                .doc("database host name");
        public static final Setting<Integer> PORT = Setting.integer("database.port").between(1, 65_535)
                .showing(byKind(POSTGRES_PORT, MARIADB_PORT)).doc("database port");
        public static final Setting<String> NAME = Setting.string("database.name").notBlank().required()
                .doc("database (Postgres) / schema (MariaDB) holding the tables");
        public static final Setting<String> SCHEMA = Setting.string("database.schema").notBlank().defaultsTo("public")
                .doc("Postgres schema of the tables (unused on MariaDB)");
        public static final Setting<String> USER = Setting.string("database.user").notBlank().required()
                .doc("user with replication rights");
        public static final Setting<String> PASSWORD = Setting.string("database.password").defaultsTo("").secret()
                .doc("the user's password; never logged");
        public static final Setting<Long> SERVER_ID = Setting.number("database.server.id").between(1, MAX_SERVER_ID)
                .showing("(derived from instance.id)").doc("MariaDB replica id, unique per binlog reader: "
                        + FIRST_DERIVED_SERVER_ID + " + CRC-32 of instance.id unless set (two standbys never share "
                        + "one)");
        public static final Setting<Boolean> PREREQUISITES_CHECK = Setting.bool("database.prerequisites.check")
                .defaultsTo(true).doc("before each engine run, check the server's settings and the user's grants "
                        + "and keep the engine stopped while one is missing; false skips the check");

        /** The settings above. */
        public static final List<Setting<?>> SETTINGS = List.of(KIND, HOST, PORT, NAME, SCHEMA, USER, PASSWORD,
                SERVER_ID, PREREQUISITES_CHECK);

        public Database {
            KIND.check(kind);
            HOST.check(host);
            PORT.check(port);
            NAME.check(name);
            SCHEMA.check(schema);
            USER.check(user);
            password = password == null ? "" : password;
            SERVER_ID.check(serverId);
        }

        static Database from(SettingsReader s, String instanceId) {
            String kind = s.get(KIND);
            return new Database(kind, s.get(HOST), s.find(PORT).orElse(POSTGRES.equals(kind) ? POSTGRES_PORT
                    : MARIADB_PORT), s.get(NAME), s.get(SCHEMA), s.get(USER), s.get(PASSWORD),
                    s.find(SERVER_ID).orElseGet(() -> derivedServerId(instanceId)), s.get(PREREQUISITES_CHECK));
        }

        /**
         * A MariaDB replica id unique per instance without configuration: {@value #FIRST_DERIVED_SERVER_ID} + the
         * CRC-32 of the instance id, folded into the 32-bit id space (two standbys must not share an id: the server
         * disconnects the older of two replicas with one id).
         */
        static long derivedServerId(String instanceId) {
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(instanceId.getBytes(StandardCharsets.UTF_8));
            return FIRST_DERIVED_SERVER_ID + crc.getValue() % (MAX_SERVER_ID - FIRST_DERIVED_SERVER_ID + 1);
        }

        public boolean isPostgres() {
            return POSTGRES.equals(kind);
        }

        /** The schema (Postgres) or database (MariaDB) that holds the captured tables. */
        public String tableContainer() {
            return isPostgres() ? schema : name;
        }

        /** The settings, the password masked. */
        @Override
        public String toString() {
            return ConfigText.describe(this);
        }
    }

    /**
     * The Kafka cluster the envelopes, offsets and schema history go to, and how every client reaches it.
     *
     * @param bootstrapServers  {@link #BOOTSTRAP_SERVERS}
     * @param replicationFactor {@link #REPLICATION_FACTOR}
     * @param createTopics      {@link #CREATE_TOPICS}
     * @param ackTimeoutMs      {@link #ACK_TIMEOUT_MS}
     * @param lingerMs          {@link #LINGER_MS}; the producer's {@code delivery.timeout.ms} is the ack timeout and
     *                          its {@code request.timeout.ms} is {@code min(30000, ackTimeoutMs - lingerMs)}, so
     *                          Kafka's rule {@code delivery >= linger + request} always holds
     * @param statusMinCompactionLagMs {@link #STATUS_MIN_COMPACTION_LAG_MS}
     * @param client            every other {@code kafka.<property>}: a Kafka client property
     *                          ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}, …) given to every client — the
     *                          producer, the topic admin, the lease consumer and the Debezium engine's offset store and
     *                          schema history; the connector's own client settings (acks, idempotence, serializers,
     *                          group ids) win
     */
    public record Kafka(String bootstrapServers, short replicationFactor, boolean createTopics, long ackTimeoutMs,
                        int lingerMs, long statusMinCompactionLagMs, Map<String, String> client) {

        /** Prefix of the Kafka settings in the config file ({@code CS_CDC_KAFKA_} in the environment). */
        public static final String PREFIX = "kafka.";

        /** The smallest producer {@code request.timeout.ms} the connector derives. */
        public static final long MIN_REQUEST_TIMEOUT_MS = 1_000;

        public static final Setting<String> BOOTSTRAP_SERVERS = Setting.string(PREFIX + "bootstrap.servers")
                .notBlank().required()
                .doc("the cluster's bootstrap servers");
        public static final Setting<Integer> REPLICATION_FACTOR = Setting.integer(PREFIX + "replication.factor")
                .defaultsTo(3).between(1, Short.MAX_VALUE).doc("for topics this connector creates");
        public static final Setting<Boolean> CREATE_TOPICS = Setting.bool(PREFIX + "create.topics").defaultsTo(true)
                .doc("create missing topics at start");
        public static final Setting<Long> ACK_TIMEOUT_MS = Setting.number(PREFIX + "ack.timeout.ms")
                .defaultsTo(30_000L).between(1_000, 600_000).doc("a batch not acked in time fails the engine "
                        + "(restart from committed offsets); the producer's delivery.timeout.ms");
        public static final Setting<Integer> LINGER_MS = Setting.integer(PREFIX + "linger.ms").defaultsTo(0)
                .between(0, 1_000).doc("producer linger.ms (0: latency first); must stay " + MIN_REQUEST_TIMEOUT_MS
                        + " ms below kafka.ack.timeout.ms");
        public static final Setting<Long> STATUS_MIN_COMPACTION_LAG_MS = Setting.number(
                "topic.pipeline.status.min.compaction.lag.ms")
                .defaultsTo(TopicCatalog.DEFAULT_STATUS_MIN_COMPACTION_LAG.toMillis()).atLeast(0)
                .doc("min.compaction.lag.ms of pipeline-status: a group lagging less than this still reads every "
                        + "intermediate run state");

        /** The settings above; any other {@value #PREFIX} key is a client property. */
        public static final List<Setting<?>> SETTINGS = List.of(BOOTSTRAP_SERVERS, REPLICATION_FACTOR, CREATE_TOPICS,
                ACK_TIMEOUT_MS, LINGER_MS, STATUS_MIN_COMPACTION_LAG_MS);

        /** The producer's {@code request.timeout.ms}: leaves room for {@code linger.ms} in the delivery timeout. */
        public int requestTimeoutMs() {
            return (int) Math.min(30_000, ackTimeoutMs - lingerMs);
        }

        public Kafka {
            BOOTSTRAP_SERVERS.check(bootstrapServers);
            REPLICATION_FACTOR.check((int) replicationFactor);
            ACK_TIMEOUT_MS.check(ackTimeoutMs);
            LINGER_MS.check(lingerMs);
            ACK_TIMEOUT_MS.require(ackTimeoutMs - lingerMs >= MIN_REQUEST_TIMEOUT_MS, "(" + ackTimeoutMs
                    + ") must exceed " + LINGER_MS.key() + " (" + lingerMs + ") by at least " + MIN_REQUEST_TIMEOUT_MS
                    + " ms: the ack timeout is the producer's delivery.timeout.ms, which Kafka requires to be at "
                    + "least linger.ms + request.timeout.ms");
            STATUS_MIN_COMPACTION_LAG_MS.check(statusMinCompactionLagMs);
            client = Map.copyOf(client == null ? Map.of() : client);
            for (Map.Entry<String, String> e : client.entrySet()) {
                String key = PREFIX + e.getKey();
                if (!e.getKey().matches("[a-z0-9][a-z0-9.-]*")) {
                    throw new SettingException(key, key + " is not a Kafka client property name (lower case, dots)");
                }
            }
        }

        /** Reads the settings above, then every other {@value #PREFIX} key as a client property. */
        static Kafka from(SettingsReader s) {
            return new Kafka(s.get(BOOTSTRAP_SERVERS), s.get(REPLICATION_FACTOR).shortValue(), s.get(CREATE_TOPICS),
                    s.get(ACK_TIMEOUT_MS), s.get(LINGER_MS), s.get(STATUS_MIN_COMPACTION_LAG_MS),
                    s.passThrough(PREFIX));
        }

        /** {@code bootstrap.servers} plus the pass-through client properties: the base of every client's config. */
        public Map<String, Object> clientProperties() {
            Map<String, Object> props = new HashMap<>(client);
            props.put("bootstrap.servers", bootstrapServers);
            return props;
        }

        /** The settings, every secret client property ({@code SecretKeys}) masked. */
        @Override
        public String toString() {
            return ConfigText.describe(this);
        }
    }

    /**
     * Debezium engine settings.
     *
     * @param connectorName        {@link #CONNECTOR_NAME}; engine name, Debezium {@code topic.prefix} and lease group:
     *                             instances of one database share it
     * @param snapshotMode         {@link #SNAPSHOT_MODE}; {@code never} is read as {@code no_data}
     * @param slotName             {@link #SLOT_NAME}
     * @param publicationName      {@link #PUBLICATION_NAME}
     * @param slotDropOnStop       {@link #SLOT_DROP_ON_STOP}
     * @param slotMaxRetries       {@link #SLOT_MAX_RETRIES}
     * @param slotRetryDelayMs     {@link #SLOT_RETRY_DELAY_MS}
     * @param heartbeatIntervalMs  {@link #HEARTBEAT_INTERVAL_MS}; readiness proves streaming by a batch within 3
     *                             intervals
     * @param pollIntervalMs       {@link #POLL_INTERVAL_MS}
     * @param maxBatchSize         {@link #MAX_BATCH_SIZE}
     * @param maxQueueSize         {@link #MAX_QUEUE_SIZE}; must exceed {@code maxBatchSize}
     * @param offsetFlushIntervalMs {@link #OFFSET_FLUSH_INTERVAL_MS}
     * @param restartBackoff       wait before restarting a failed engine (database or broker unreachable) or a dead
     *                             capture/lease thread: exponential with jitter and a cap
     * @param threadMaxRestarts    {@link #THREAD_MAX_RESTARTS}
     * @param shutdownTimeoutMs    {@link #SHUTDOWN_TIMEOUT_MS}
     * @param maxQueueBytes        {@link #MAX_QUEUE_BYTES}: with {@code max.queue.size} it bounds the memory rows take
     *                             before the producer, whose own buffer is {@code kafka.buffer.memory}
     */
    public record Capture(String connectorName, String snapshotMode, String slotName, String publicationName,
                          boolean slotDropOnStop, int slotMaxRetries, long slotRetryDelayMs, long heartbeatIntervalMs,
                          long pollIntervalMs, int maxBatchSize, int maxQueueSize, long offsetFlushIntervalMs,
                          Backoff restartBackoff, int threadMaxRestarts, long shutdownTimeoutMs, long maxQueueBytes) {

        public static final Setting<String> CONNECTOR_NAME = Setting.string("connector.name")
                .matching("[a-zA-Z0-9_.-]+")
                .defaultsTo("changestream-cdc")
                .doc("engine name, Debezium topic.prefix, lease group; shared by standbys");
        public static final Setting<String> SNAPSHOT_MODE = Setting.oneOf("snapshot.mode", "no_data", "never",
                "initial").defaultsTo("no_data").doc("no_data (alias never): from now on; initial: backfill existing "
                + "rows first");
        public static final Setting<String> SLOT_NAME = Setting.string("postgres.slot.name").matching("[a-z0-9_]{1,63}")
                .defaultsTo("changestream_cdc").doc("Postgres replication slot");
        public static final Setting<String> PUBLICATION_NAME = Setting.string("postgres.publication.name")
                .matching("[a-zA-Z0-9_]{1,63}").defaultsTo("changestream_cdc")
                .doc("Postgres publication, created for the two captured tables only");
        public static final Setting<Boolean> SLOT_DROP_ON_STOP = Setting.bool("postgres.slot.drop.on.stop")
                .defaultsTo(false).doc("drop the slot on a graceful stop: tests only (a dropped slot loses what "
                        + "happens while stopped)");
        public static final Setting<Integer> SLOT_MAX_RETRIES = Setting.integer("postgres.slot.max.retries")
                .defaultsTo(6).between(0, 1_000_000)
                .doc("attempts to take a slot another reader holds before the engine restarts");
        public static final Setting<Long> SLOT_RETRY_DELAY_MS = Setting.number("postgres.slot.retry.delay.ms")
                .defaultsTo(1_000L).between(10, 600_000).doc("wait between those attempts");
        public static final Setting<Long> HEARTBEAT_INTERVAL_MS = Setting.number("heartbeat.interval.ms")
                .defaultsTo(5_000L).between(0, 3_600_000).doc("Debezium heartbeats: a quiet table never pins WAL; "
                        + "Postgres readiness needs one within 3 intervals; 0 = off");
        public static final Setting<Long> POLL_INTERVAL_MS = Setting.number("poll.interval.ms").defaultsTo(10L)
                .between(1, 60_000).doc("engine poll interval (the latency floor)");
        public static final Setting<Integer> MAX_BATCH_SIZE = Setting.integer("max.batch.size").defaultsTo(2_048)
                .between(1, 1_000_000).doc("engine batch (records)");
        public static final Setting<Integer> MAX_QUEUE_SIZE = Setting.integer("max.queue.size").defaultsTo(8_192)
                .between(2, 10_000_000).doc("engine queue (records); must exceed max.batch.size");
        public static final Setting<Long> OFFSET_FLUSH_INTERVAL_MS = Setting.number("offset.flush.interval.ms")
                .defaultsTo(1_000L).between(0, 3_600_000)
                .doc("offset commits to cdc-offsets (bounds repeats after a crash)");
        public static final Setting<Integer> THREAD_MAX_RESTARTS = Setting.integer("thread.max.restarts")
                .defaultsTo(10).between(0, 1_000_000).doc("deaths in a row of the capture or lease thread that are "
                        + "restarted; one more and /health/live fails (the count resets once a thread ran longer "
                        + "than restart.backoff.max.ms)");
        public static final Setting<Long> SHUTDOWN_TIMEOUT_MS = Setting.number("shutdown.timeout.ms")
                .defaultsTo(8_000L).between(100, 600_000).doc("bound of a graceful stop");
        public static final Setting<Long> MAX_QUEUE_BYTES = Setting.number("max.queue.bytes").defaultsTo(64L << 20)
                .check(b -> b == 0 || b >= MAX_RECORD_BYTES, "must be 0 (off) or at least " + MAX_RECORD_BYTES
                        + " (one row of max.row.bytes)")
                .doc("engine queue bound in bytes (64 MiB; 0 = records only)");

        /** The settings above (the restart backoff's are {@link Backoff#SETTINGS}). */
        public static final List<Setting<?>> SETTINGS = List.of(CONNECTOR_NAME, SNAPSHOT_MODE, SLOT_NAME,
                PUBLICATION_NAME, SLOT_DROP_ON_STOP, SLOT_MAX_RETRIES, SLOT_RETRY_DELAY_MS, HEARTBEAT_INTERVAL_MS,
                POLL_INTERVAL_MS, MAX_BATCH_SIZE, MAX_QUEUE_SIZE, OFFSET_FLUSH_INTERVAL_MS, THREAD_MAX_RESTARTS,
                SHUTDOWN_TIMEOUT_MS, MAX_QUEUE_BYTES);

        public Capture {
            CONNECTOR_NAME.check(connectorName);
            snapshotMode = "never".equals(SNAPSHOT_MODE.check(snapshotMode)) ? "no_data" : snapshotMode;
            SLOT_NAME.check(slotName);
            PUBLICATION_NAME.check(publicationName);
            SLOT_MAX_RETRIES.check(slotMaxRetries);
            SLOT_RETRY_DELAY_MS.check(slotRetryDelayMs);
            HEARTBEAT_INTERVAL_MS.check(heartbeatIntervalMs);
            POLL_INTERVAL_MS.check(pollIntervalMs);
            MAX_BATCH_SIZE.check(maxBatchSize);
            MAX_QUEUE_SIZE.check(maxQueueSize);
            MAX_QUEUE_SIZE.require(maxQueueSize > maxBatchSize, "(" + maxQueueSize + ") must be larger than "
                    + MAX_BATCH_SIZE.key() + " (" + maxBatchSize + ")");
            OFFSET_FLUSH_INTERVAL_MS.check(offsetFlushIntervalMs);
            check(restartBackoff != null, "restart backoff settings are required");
            THREAD_MAX_RESTARTS.check(threadMaxRestarts);
            SHUTDOWN_TIMEOUT_MS.check(shutdownTimeoutMs);
            MAX_QUEUE_BYTES.check(maxQueueBytes);
        }

        static Capture from(SettingsReader s) {
            return new Capture(s.get(CONNECTOR_NAME), s.get(SNAPSHOT_MODE), s.get(SLOT_NAME), s.get(PUBLICATION_NAME),
                    s.get(SLOT_DROP_ON_STOP), s.get(SLOT_MAX_RETRIES), s.get(SLOT_RETRY_DELAY_MS),
                    s.get(HEARTBEAT_INTERVAL_MS), s.get(POLL_INTERVAL_MS), s.get(MAX_BATCH_SIZE), s.get(MAX_QUEUE_SIZE),
                    s.get(OFFSET_FLUSH_INTERVAL_MS), Backoff.from(s), s.get(THREAD_MAX_RESTARTS),
                    s.get(SHUTDOWN_TIMEOUT_MS), s.get(MAX_QUEUE_BYTES));
        }
    }

    /**
     * An exponential backoff with jitter and a cap: attempt {@code n} (from 1) waits
     * {@code min(max, initial × 2^(n-1))}, shortened by a random part of up to {@code jitterPercent}% so that
     * instances restarted together do not retry in step.
     *
     * @param initialMs     {@link #INITIAL_MS}
     * @param maxMs         {@link #MAX_MS}; at least {@code initialMs}
     * @param jitterPercent {@link #JITTER_PERCENT}
     */
    public record Backoff(long initialMs, long maxMs, int jitterPercent) {

        public static final Setting<Long> INITIAL_MS = Setting.number("restart.backoff.ms").defaultsTo(500L)
                .between(10, 600_000).doc("first wait before restarting a failed engine or a dead capture/lease "
                        + "thread; doubles per failed attempt; also the engine's errors.retry.delay.initial.ms");
        public static final Setting<Long> MAX_MS = Setting.number("restart.backoff.max.ms").defaultsTo(30_000L)
                .between(10, 3_600_000).doc("cap of that wait (and of the engine's errors.retry.delay.max.ms)");
        public static final Setting<Integer> JITTER_PERCENT = Setting.integer("restart.backoff.jitter.percent")
                .defaultsTo(20).between(0, 100).doc("each wait is shortened by a random part of up to this share, so "
                        + "instances do not retry in step");

        /** The settings above. */
        public static final List<Setting<?>> SETTINGS = List.of(INITIAL_MS, MAX_MS, JITTER_PERCENT);

        public Backoff {
            INITIAL_MS.check(initialMs);
            MAX_MS.check(maxMs);
            MAX_MS.require(maxMs >= initialMs, "(" + maxMs + ") must be at least " + INITIAL_MS.key() + " ("
                    + initialMs + ")");
            JITTER_PERCENT.check(jitterPercent);
        }

        static Backoff from(SettingsReader s) {
            return new Backoff(s.get(INITIAL_MS), s.get(MAX_MS), s.get(JITTER_PERCENT));
        }

        /**
         * The wait before attempt {@code attempt} (1 = first retry): doubling from {@code initialMs} up to
         * {@code maxMs}, shortened by up to {@code jitterPercent} % ({@code random} in [0, 1)); the runtime's
         * {@link io.changestream.runtime.Backoff}.
         */
        public long delayMs(int attempt, double random) {
            return new io.changestream.runtime.Backoff(Duration.ofMillis(initialMs), Duration.ofMillis(maxMs), 2.0,
                    jitterPercent / 100.0).shortenedMillis(attempt, random);
        }
    }

    /**
     * The lease that keeps a standby from reading while the active instance lives (MariaDB; on Postgres the slot
     * already admits one reader).
     *
     * @param leaseEnabled     {@link #LEASE_ENABLED}
     * @param sessionTimeoutMs {@link #SESSION_TIMEOUT_MS}; the broker's group.min.session.timeout.ms bounds it from
     *                         below
     * @param pollIntervalMs   {@link #POLL_INTERVAL_MS}; below a quarter of {@code sessionTimeoutMs}
     * @param instanceId       {@link #INSTANCE_ID}: names this instance in the lease group, in the {@code cs.capturer}
     *                         header of every produced record, and (hashed) in the default MariaDB server id
     */
    public record Standby(boolean leaseEnabled, int sessionTimeoutMs, long pollIntervalMs, String instanceId) {

        public static final Setting<Boolean> LEASE_ENABLED = Setting.bool("lease.enabled")
                .showing(byKind(false, true)).doc("hold the group lease before reading");
        public static final Setting<Integer> SESSION_TIMEOUT_MS = Setting.integer("lease.session.timeout.ms")
                .defaultsTo(6_000).between(1_000, 600_000).doc("how fast a dead holder loses the lease; the holder "
                        + "renews every quarter of it");
        public static final Setting<Long> POLL_INTERVAL_MS = Setting.number("lease.poll.interval.ms")
                .defaultsTo(500L).between(10, 60_000)
                .doc("lease thread poll interval; below a quarter of lease.session.timeout.ms");
        public static final Setting<String> INSTANCE_ID = Setting.string("instance.id")
                .matching("[A-Za-z0-9_.:-]{1,128}")
                .showing("<host>-<pid>").doc("names this instance: lease member, cs.capturer header of every "
                        + "produced record, producer client id, derived database.server.id");

        /** The settings above. */
        public static final List<Setting<?>> SETTINGS = List.of(INSTANCE_ID, LEASE_ENABLED, SESSION_TIMEOUT_MS,
                POLL_INTERVAL_MS);

        public Standby {
            INSTANCE_ID.check(instanceId);
            SESSION_TIMEOUT_MS.check(sessionTimeoutMs);
            POLL_INTERVAL_MS.check(pollIntervalMs);
            POLL_INTERVAL_MS.require(pollIntervalMs < sessionTimeoutMs / 4, "(" + pollIntervalMs
                    + ") must be below a quarter of " + SESSION_TIMEOUT_MS.key() + " (" + sessionTimeoutMs + ")");
        }

        /** Reads the settings above; the lease is on by default on MariaDB ({@code postgres} false). */
        static Standby from(SettingsReader s, boolean postgres, String instanceId) {
            return new Standby(s.find(LEASE_ENABLED).orElse(!postgres), s.get(SESSION_TIMEOUT_MS),
                    s.get(POLL_INTERVAL_MS), instanceId);
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
     * @param host {@link #HOST}
     * @param port {@link #PORT}; 0 = any free port
     */
    public record Http(String host, int port) {

        public static final Setting<String> HOST = Setting.string("http.host").defaultsTo("0.0.0.0")
                .doc("bind address of health and metrics");
        public static final Setting<Integer> PORT = Setting.integer("http.port").defaultsTo(8090).between(0, 65_535)
                .doc("port of health and metrics (0 = any free port)");

        /** The settings above. */
        public static final List<Setting<?>> SETTINGS = List.of(HOST, PORT);

        public Http {
            HOST.check(host);
            PORT.check(port);
        }

        static Http from(SettingsReader s) {
            return new Http(s.get(HOST), s.get(PORT));
        }
    }
}
