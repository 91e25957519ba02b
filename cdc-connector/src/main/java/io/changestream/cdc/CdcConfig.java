package io.changestream.cdc;

import io.changestream.cdc.transform.Settings;
import io.changestream.cdc.transform.TransformSettings;
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
        Database database = Database.from(s);
        boolean postgres = database.isPostgres();
        CdcConfig config = new CdcConfig(database,
                new Kafka(s.required("kafka.bootstrap.servers"),
                        (short) s.integer("kafka.replication.factor", 3, 1, Short.MAX_VALUE),
                        s.bool("kafka.create.topics", true),
                        s.number("kafka.ack.timeout.ms", 30_000, 1_000, 600_000),
                        s.integer("kafka.linger.ms", 0, 0, 1_000),
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
                        s.number("restart.backoff.ms", 2_000, 10, 600_000),
                        s.number("shutdown.timeout.ms", 8_000, 100, 600_000)),
                new Standby(s.bool("lease.enabled", !postgres),
                        s.integer("lease.session.timeout.ms", 6_000, 1_000, 600_000),
                        s.number("lease.poll.interval.ms", 500, 10, 60_000)),
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
     * @param serverId MariaDB replica server id, unique in the replication topology ({@code database.server.id}, 5400)
     */
    public record Database(String kind, String host, int port, String name, String schema, String user,
                           String password, long serverId) {

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

        static Database from(Settings s) {
            String kind = s.oneOf("database.kind", "postgres", "postgres", "mariadb");
            return new Database(kind, s.string("database.host", "localhost"),
                    s.integer("database.port", "postgres".equals(kind) ? 5432 : 3306, 1, 65_535),
                    s.required("database.name"), s.string("database.schema", "public"), s.required("database.user"),
                    s.string("database.password", ""), s.number("database.server.id", 5400, 1, 4_294_967_295L));
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
                    + ", serverId=" + serverId + "]";
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
     * @param lingerMs          producer {@code linger.ms} ({@code kafka.linger.ms}, 0: latency first)
     * @param client            every other {@code kafka.<property>}: a Kafka client property ({@code security.protocol},
     *                          {@code sasl.*}, {@code ssl.*}, …) given to every client — the producer, the topic
     *                          admin, the lease consumer and the Debezium engine's offset store and schema history;
     *                          the connector's own client settings (acks, idempotence, serializers, group ids) win
     */
    public record Kafka(String bootstrapServers, short replicationFactor, boolean createTopics, long ackTimeoutMs,
                        int lingerMs, Map<String, String> client) {

        /** Prefix of the Kafka settings in the config file ({@code CS_CDC_KAFKA_} in the environment). */
        public static final String PREFIX = "kafka.";

        /** Shown instead of a secret client property. */
        public static final String MASK = "******";

        public Kafka {
            require(bootstrapServers != null && !bootstrapServers.isBlank(), "setting kafka.bootstrap.servers is required");
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
            return io.changestream.topics.SecretSettings.isSecret(property);
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
                    + ", client=" + maskedClient() + "]";
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
     * @param restartBackoffMs     wait before restarting a failed engine ({@code restart.backoff.ms}, 2000)
     * @param shutdownTimeoutMs    bound on a graceful stop ({@code shutdown.timeout.ms}, 8000)
     */
    public record Capture(String connectorName, String snapshotMode, String slotName, String publicationName,
                          boolean slotDropOnStop, int slotMaxRetries, long slotRetryDelayMs, long heartbeatIntervalMs,
                          long pollIntervalMs, int maxBatchSize, int maxQueueSize, long offsetFlushIntervalMs,
                          long restartBackoffMs, long shutdownTimeoutMs) {

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
     */
    public record Standby(boolean leaseEnabled, int sessionTimeoutMs, long pollIntervalMs) {
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
