package io.changestream.logs;

import io.changestream.logs.engine.StreamSettings;
import io.changestream.logs.limits.CallerLimits;
import io.changestream.logs.source.AirflowSettings;
import io.changestream.logs.source.ObjectStoreSettings;
import io.changestream.logs.source.PathNames;
import io.changestream.logs.source.ReadLimits;
import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Everything the log-tailer is configured with: a properties file, each key overridable by an environment variable
 * {@code LOG_TAILER_<KEY>} (upper case, {@code .} → {@code _}, camel-case humps as {@code _} accepted too; e.g.
 * {@code LOG_TAILER_HTTP_PORT}) and then by a system property {@code log.tailer.<key>} (decision 2701). Every setting
 * is declared once as a {@link Setting} — the log-tailer's own here, the others beside the record they configure —
 * and {@link #SETTINGS} lists them all. Any {@code kafka.*} key that is not one of them is a Kafka client property
 * passed to every client ({@code LOG_TAILER_KAFKA_SASL_JAAS_CONFIG} → {@code sasl.jaas.config}). Immutable; validated
 * at construction with a message naming the setting; {@link #toString()} masks tokens and secret client properties.
 * README.md lists every key and default.
 *
 * @param httpHost             {@link #HTTP_HOST}
 * @param httpPort             {@link #HTTP_PORT} (0 = any free port)
 * @param acceptQueue          {@link #HTTP_ACCEPT_QUEUE}: the connector's accept backlog
 * @param maxThreads           {@link #HTTP_MAX_THREADS}: Jetty request threads
 * @param idleTimeout          {@link #HTTP_IDLE_TIMEOUT_SECONDS}: a connection with no I/O is closed
 * @param authTokens           {@link #AUTH_TOKENS}: bearer tokens accepted (comma-separated; required)
 * @param storageRoot          {@link #STORAGE_ROOT}: root of {@code <fqn>/<runId>/logs.txt} (optional)
 * @param watchStorage         {@link #STORAGE_WATCH}: poll a run at once when its directory changes (inotify)
 * @param objectStore          {@code s3.*}: the platform's run logs in object storage, when {@code s3.bucket} is set
 *                             ({@link ObjectStoreSettings}; optional)
 * @param airflow              {@code airflow.*}: the platform's Airflow plugin log endpoint, when {@code airflow.url}
 *                             is set ({@link AirflowSettings}; optional)
 * @param pipelineIds          {@link #PIPELINES_IDS}: {@code id=fqn} pairs (comma-separated) so {fqn} may be an id
 * @param knownPipelines       {@link #PIPELINES_KNOWN}: FQNs known without storage or status (comma-separated)
 * @param kafkaBootstrap       {@link #KAFKA_BOOTSTRAP_SERVERS} (alias {@code kafka.bootstrap.servers}): when blank,
 *                             no replay topic and every run UNKNOWN
 * @param kafkaClient          every other {@code kafka.<property>} ({@code LOG_TAILER_KAFKA_<PROPERTY>}, dots as
 *                             underscores): a Kafka client property ({@code security.protocol}, {@code sasl.*},
 *                             {@code ssl.*}, …) given to the producer, the replay consumer and the Streams app
 * @param kafkaNamespace       {@link #KAFKA_NAMESPACE}: topic name prefix
 * @param kafkaStateDir        {@link #KAFKA_STATE_DIR} (java.io.tmpdir/log-tailer-state): Kafka Streams stores
 * @param instanceId           {@link #KAFKA_INSTANCE_ID} (hostname-port): names this server's stores
 * @param replayIndexWait      {@link #KAFKA_REPLAY_INDEX_WAIT}: how long a replay waits for a chunk to be indexed
 * @param replayThreads        {@link #KAFKA_REPLAY_THREADS}: threads serving Kafka replays
 * @param replayQueue          {@link #KAFKA_REPLAY_QUEUE}: replays waiting at most; more are served truncated
 * @param producerMaxBlock     {@link #KAFKA_PRODUCER_MAX_BLOCK}: how long a poll may block on a full producer buffer
 * @param stream               {@code stream.*}: the 15 stream limits and the heartbeat ({@link StreamSettings})
 * @param s3Limits             {@code s3.maxActiveRuns}, {@code s3.maxConcurrentReads}, {@code s3.maxResponseBytes}:
 *                             the object store's bounds ({@link ReadLimits})
 * @param airflowLimits        {@code airflow.maxActiveRuns}, {@code airflow.maxConcurrentReads},
 *                             {@code airflow.maxResponseBytes}: the Airflow plugin's bounds
 * @param callerLimits         {@code limits.*}: connections and runs per token and per client address
 *                             ({@link CallerLimits})
 */
public record LogTailerConfig(
        String httpHost,
        int httpPort,
        int acceptQueue,
        int maxThreads,
        Duration idleTimeout,
        List<String> authTokens,
        Path storageRoot,
        boolean watchStorage,
        ObjectStoreSettings objectStore,
        AirflowSettings airflow,
        Map<String, String> pipelineIds,
        Set<String> knownPipelines,
        String kafkaBootstrap,
        Map<String, String> kafkaClient,
        String kafkaNamespace,
        Path kafkaStateDir,
        String instanceId,
        Duration replayIndexWait,
        int replayThreads,
        int replayQueue,
        Duration producerMaxBlock,
        StreamSettings stream,
        ReadLimits s3Limits,
        ReadLimits airflowLimits,
        CallerLimits callerLimits) {

    /** Prefix of the environment overrides; the system properties' is {@code log.tailer.}. */
    public static final String ENV_PREFIX = "LOG_TAILER_";
    /** Prefix of the Kafka client properties: every {@code kafka.*} key that is not in {@link #SETTINGS}. */
    public static final String KAFKA_CLIENT_PREFIX = "kafka.";


    public static final Setting<String> HTTP_HOST = Setting.string("http.host").defaultsTo("0.0.0.0")
            .notBlank().doc("listen address");
    public static final Setting<Integer> HTTP_PORT = Setting.integer("http.port").defaultsTo(8590).between(0, 65535)
            .doc("listen port (0 = any)");
    public static final Setting<Integer> HTTP_ACCEPT_QUEUE = Setting.integer("http.acceptQueue").defaultsTo(4096)
            .positive().doc("connector backlog");
    public static final Setting<Integer> HTTP_MAX_THREADS = Setting.integer("http.maxThreads").defaultsTo(200)
            .atLeast(8).doc("Jetty threads");
    public static final Setting<Long> HTTP_IDLE_TIMEOUT_SECONDS = Setting.number("http.idleTimeoutSeconds")
            .defaultsTo(60L).positive().doc("idle close");
    public static final Setting<List<String>> AUTH_TOKENS = Setting.list("auth.tokens").required().secret()
            .check(t -> !t.isEmpty() && t.stream().noneMatch(String::isBlank), "must list at least one non-blank token")
            .doc("accepted bearer tokens, comma-separated");
    public static final Setting<Path> STORAGE_ROOT = path("storage.root")
            .doc("local directory backend <root>/<fqn>/<runId>/logs.txt");
    public static final Setting<Boolean> STORAGE_WATCH = Setting.bool("storage.watch").defaultsTo(true)
            .doc("poll a run at once when its storage directory changes (inotify)");
    public static final Setting<Map<String, String>> PIPELINES_IDS = Setting.of("pipelines.ids",
            LogTailerConfig::idPairs, ids -> ids.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(","))).defaultsTo(Map.of()).doc("id=fqn pairs, comma-separated");
    public static final Setting<List<String>> PIPELINES_KNOWN = Setting.list("pipelines.known").defaultsTo(List.of())
            .doc("FQNs known without storage or status, comma-separated");
    public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS = Setting.string("kafka.bootstrapServers")
            .defaultsTo("").alias("kafka.bootstrap.servers").doc("blank = no replay topic, every run UNKNOWN");
    public static final Setting<String> KAFKA_NAMESPACE = Setting.string("kafka.namespace").defaultsTo("cs.")
            .emptyAllowed().doc("topic prefix (empty: none)");
    public static final Setting<Path> KAFKA_STATE_DIR = path("kafka.stateDir")
            .showing("java.io.tmpdir/log-tailer-state").doc("Kafka Streams stores");
    public static final Setting<String> KAFKA_INSTANCE_ID = Setting.string("kafka.instanceId")
            .showing("hostname-port").matching("[A-Za-z0-9._-]+")
            .doc("this server's store name");
    public static final Setting<Duration> KAFKA_REPLAY_INDEX_WAIT = Setting.millis("kafka.replayIndexWaitMillis")
            .defaultsTo(Duration.ofMillis(2000)).notNegative().doc("wait for a just-produced chunk to be indexed");
    public static final Setting<Integer> KAFKA_REPLAY_THREADS = Setting.integer("kafka.replayThreads").defaultsTo(2)
            .positive().doc("replay workers");
    public static final Setting<Integer> KAFKA_REPLAY_QUEUE = Setting.integer("kafka.replayQueue").defaultsTo(1000)
            .positive().doc("queued replays (more are served truncated)");
    public static final Setting<Duration> KAFKA_PRODUCER_MAX_BLOCK = Setting.millis("kafka.producerMaxBlockMillis")
            .defaultsTo(Duration.ofMillis(100)).positive()
            .doc("longest a poll blocks on a full producer buffer");

    /**
     * Every setting of the log-tailer: its own, then {@link StreamSettings}, {@link ObjectStoreSettings},
     * {@link AirflowSettings}, {@link ReadLimits} and {@link CallerLimits}; the {@code kafka.*} client properties
     * ({@link #KAFKA_CLIENT_PREFIX}) are not declared.
     */
    public static final List<Setting<?>> SETTINGS = Setting.all(List.of(HTTP_HOST, HTTP_PORT,
                    HTTP_ACCEPT_QUEUE, HTTP_MAX_THREADS, HTTP_IDLE_TIMEOUT_SECONDS, AUTH_TOKENS, STORAGE_ROOT,
                    STORAGE_WATCH, PIPELINES_IDS, PIPELINES_KNOWN, KAFKA_BOOTSTRAP_SERVERS, KAFKA_NAMESPACE,
                    KAFKA_STATE_DIR, KAFKA_INSTANCE_ID, KAFKA_REPLAY_INDEX_WAIT, KAFKA_REPLAY_THREADS,
                    KAFKA_REPLAY_QUEUE, KAFKA_PRODUCER_MAX_BLOCK), StreamSettings.SETTINGS,
            ObjectStoreSettings.SETTINGS, AirflowSettings.SETTINGS, ReadLimits.SETTINGS, CallerLimits.SETTINGS);

    public LogTailerConfig {
        HTTP_HOST.check(httpHost);
        HTTP_PORT.check(httpPort);
        HTTP_ACCEPT_QUEUE.check(acceptQueue);
        HTTP_MAX_THREADS.check(maxThreads);
        HTTP_IDLE_TIMEOUT_SECONDS.check(idleTimeout == null ? null : idleTimeout.toSeconds());
        authTokens = List.copyOf(AUTH_TOKENS.check(authTokens));
        require(storageRoot != null || objectStore != null || airflow != null,
                "set storage.root, s3.bucket or airflow.url (any of them): there is no log backend");
        pipelineIds = Map.copyOf(pipelineIds == null ? Map.of() : pipelineIds);
        knownPipelines = Set.copyOf(knownPipelines == null ? Set.of() : knownPipelines);
        for (String fqn : pipelineIds.values()) {
            String problem = PathNames.problem("pipelines.ids fqn", fqn);
            require(problem == null, problem);
        }
        for (String fqn : knownPipelines) {
            String problem = PathNames.problem("pipelines.known fqn", fqn);
            require(problem == null, problem);
        }
        kafkaClient = Map.copyOf(kafkaClient == null ? Map.of() : kafkaClient);
        for (Map.Entry<String, String> e : kafkaClient.entrySet()) {
            require(e.getKey().matches("[a-z0-9][a-z0-9.-]*") && e.getValue() != null, KAFKA_CLIENT_PREFIX + e.getKey()
                    + " is neither a log-tailer setting (README.md) nor a Kafka client property (lower case, dots)");
        }
        KAFKA_NAMESPACE.check(kafkaNamespace);
        KAFKA_STATE_DIR.check(kafkaStateDir);
        KAFKA_INSTANCE_ID.check(instanceId);
        KAFKA_REPLAY_INDEX_WAIT.check(replayIndexWait);
        KAFKA_REPLAY_THREADS.check(replayThreads);
        KAFKA_REPLAY_QUEUE.check(replayQueue);
        KAFKA_PRODUCER_MAX_BLOCK.check(producerMaxBlock);
        require(stream != null, "stream settings are required");
        require(s3Limits != null && airflowLimits != null && callerLimits != null, "limits are required");
    }

    /** True when a Kafka cluster is configured (replay topic and run-state view). */
    public boolean kafkaEnabled() {
        return kafkaBootstrap != null && !kafkaBootstrap.isBlank();
    }

    /** {@code bootstrap.servers} plus the pass-through client properties: the base of every Kafka client's config. */
    public Map<String, Object> kafkaClientProperties() {
        Map<String, Object> props = new HashMap<>(kafkaClient);
        props.put("bootstrap.servers", kafkaBootstrap);
        return props;
    }

    /** Every component, tokens and secret client properties masked ({@link ConfigText}). */
    @Override
    public String toString() {
        return ConfigText.describe(this);
    }

    /** Reads {@code file} (UTF-8) and applies the process environment's and system properties' overrides. */
    public static LogTailerConfig load(Path file) throws IOException {
        return from(SettingsReader.readFile(file), System.getenv());
    }

    /**
     * The config from properties, each key overridden by {@code LOG_TAILER_<KEY>} in {@code env} and then by the
     * system property {@code log.tailer.<key>} when present.
     */
    public static LogTailerConfig from(Properties props, Map<String, String> env) {
        Map<String, String> file = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> file.put(k, props.getProperty(k)));
        return from(file, env);
    }

    private static LogTailerConfig from(Map<String, String> file, Map<String, String> env) {
        SettingsReader s = SettingsReader.layered(file, ENV_PREFIX, env, System.getProperties(), SETTINGS);
        int port = s.get(HTTP_PORT);
        String httpHost = s.get(HTTP_HOST);
        int acceptQueue = s.get(HTTP_ACCEPT_QUEUE);
        int maxThreads = s.get(HTTP_MAX_THREADS);
        Duration idleTimeout = Duration.ofSeconds(s.get(HTTP_IDLE_TIMEOUT_SECONDS));
        List<String> tokens = s.get(AUTH_TOKENS);
        Path storageRoot = s.get(STORAGE_ROOT);
        boolean watch = s.get(STORAGE_WATCH);
        ObjectStoreSettings objectStore = ObjectStoreSettings.from(s);
        AirflowSettings airflow = AirflowSettings.from(s);
        Map<String, String> ids = s.get(PIPELINES_IDS);
        Set<String> known = Set.copyOf(s.get(PIPELINES_KNOWN));
        String bootstrap = s.get(KAFKA_BOOTSTRAP_SERVERS);
        String namespace = s.get(KAFKA_NAMESPACE);
        Path stateDir = s.find(KAFKA_STATE_DIR)
                .orElseGet(() -> Path.of(System.getProperty("java.io.tmpdir"), "log-tailer-state"));
        String instanceId = s.find(KAFKA_INSTANCE_ID).orElseGet(() -> defaultInstanceId(port));
        Duration replayIndexWait = s.get(KAFKA_REPLAY_INDEX_WAIT);
        int replayThreads = s.get(KAFKA_REPLAY_THREADS);
        int replayQueue = s.get(KAFKA_REPLAY_QUEUE);
        Duration producerMaxBlock = s.get(KAFKA_PRODUCER_MAX_BLOCK);
        StreamSettings stream = StreamSettings.from(s);
        ReadLimits s3Limits = ReadLimits.from(ReadLimits.S3, s);
        ReadLimits airflowLimits = ReadLimits.from(ReadLimits.AIRFLOW, s);
        CallerLimits callerLimits = CallerLimits.from(s);
        // after every declared key was read: the kafka.* keys left are client properties
        Map<String, String> kafkaClient = s.passThrough(KAFKA_CLIENT_PREFIX);
        return new LogTailerConfig(httpHost, port, acceptQueue, maxThreads, idleTimeout, tokens, storageRoot, watch,
                objectStore, airflow, ids, known, bootstrap, kafkaClient, namespace, stateDir, instanceId,
                replayIndexWait, replayThreads, replayQueue, producerMaxBlock, stream, s3Limits, airflowLimits,
                callerLimits);
    }

    private static Setting<Path> path(String key) {
        return Setting.of(key, Path::of, Path::toString);
    }

    /** {@code id=fqn} pairs, comma-separated, blanks dropped. */
    private static Map<String, String> idPairs(String text) {
        Map<String, String> ids = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            String pair = entry.trim();
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq >= pair.length() - 1) {
                throw new IllegalArgumentException("entries must be id=fqn, was '" + pair + "'");
            }
            ids.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return ids;
    }

    private static String defaultInstanceId(int port) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        return (host + "-" + port).replaceAll("[^A-Za-z0-9._-]", "-");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
