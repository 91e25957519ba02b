package io.changestream.logs;

import io.changestream.logs.engine.StreamSettings;
import io.changestream.logs.limits.CallerLimits;
import io.changestream.logs.source.ReadLimits;
import io.changestream.logs.source.AirflowSettings;
import io.changestream.logs.source.ObjectStoreSettings;
import io.changestream.logs.source.PathNames;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * Everything the log-tailer is configured with: a properties file, each key overridable by an environment variable
 * {@code LOG_TAILER_<KEY>} (upper case, {@code .} → {@code _}; e.g. {@code LOG_TAILER_HTTP_PORT}). Any
 * {@code kafka.*} key that is not one of the log-tailer's own is a Kafka client property passed to every client
 * ({@code LOG_TAILER_KAFKA_SASL_JAAS_CONFIG} → {@code sasl.jaas.config}). Immutable; validated at construction with a
 * message naming the setting; {@link #toString()} masks tokens and secret client properties. README.md lists every
 * key and default.
 *
 * @param httpHost             {@code http.host} (0.0.0.0)
 * @param httpPort             {@code http.port} (8590; 0 = any free port)
 * @param acceptQueue          {@code http.acceptQueue} (4096): the connector's accept backlog
 * @param maxThreads           {@code http.maxThreads} (200): Jetty request threads
 * @param idleTimeout          {@code http.idleTimeoutSeconds} (60): a connection with no I/O is closed
 * @param authTokens           {@code auth.tokens}: bearer tokens accepted (comma-separated; required)
 * @param storageRoot          {@code storage.root}: root of {@code <fqn>/<runId>/logs.txt} (optional)
 * @param watchStorage         {@code storage.watch} (true): poll a run at once when its directory changes (inotify)
 * @param objectStore          {@code s3.*}: the platform's run logs in object storage, when {@code s3.bucket} is set
 *                             ({@link ObjectStoreSettings}; optional)
 * @param airflow              {@code airflow.*}: the platform's Airflow plugin log endpoint, when {@code airflow.url}
 *                             is set ({@link AirflowSettings}; optional)
 * @param pipelineIds          {@code pipelines.ids}: {@code id=fqn} pairs (comma-separated) so {fqn} may be an id
 * @param knownPipelines       {@code pipelines.known}: FQNs known without storage or status (comma-separated)
 * @param kafkaBootstrap       {@code kafka.bootstrapServers} (alias {@code kafka.bootstrap.servers}): when blank, no
 *                             replay topic and every run UNKNOWN
 * @param kafkaClient          every other {@code kafka.<property>} ({@code LOG_TAILER_KAFKA_<PROPERTY>}, dots as
 *                             underscores): a Kafka client property ({@code security.protocol}, {@code sasl.*},
 *                             {@code ssl.*}, …) given to the producer, the replay consumer and the Streams app
 * @param kafkaNamespace       {@code kafka.namespace} (cs.): topic name prefix
 * @param kafkaStateDir        {@code kafka.stateDir} (java.io.tmpdir/log-tailer-state): Kafka Streams stores
 * @param instanceId           {@code kafka.instanceId} (hostname-port): names this server's stores
 * @param replayIndexWait      {@code kafka.replayIndexWaitMillis} (2000): how long a replay waits for a chunk to be
 *                             indexed
 * @param replayThreads        {@code kafka.replayThreads} (2): threads serving Kafka replays
 * @param replayQueue          {@code kafka.replayQueue} (1000): replays waiting at most; more are served truncated
 * @param producerMaxBlock     {@code kafka.producerMaxBlockMillis} (100): how long a poll may block on a full
 *                             producer buffer
 * @param stream               {@code stream.*}: the 15 stream limits and the heartbeat ({@link StreamSettings})
 * @param s3Limits             {@code s3.maxActiveRuns} (100), {@code s3.maxConcurrentReads} (32),
 *                             {@code s3.maxResponseBytes} (8 MiB): the object store's bounds ({@link ReadLimits})
 * @param airflowLimits        {@code airflow.maxActiveRuns} (50), {@code airflow.maxConcurrentReads} (8),
 *                             {@code airflow.maxResponseBytes} (8 MiB): the Airflow plugin's bounds
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

    /** Prefix of the environment overrides. */
    public static final String ENV_PREFIX = "LOG_TAILER_";

    /** Shown instead of a secret. */
    public static final String MASK = "******";

    /** The log-tailer's own {@code kafka.*} settings; every other {@code kafka.*} key is a client property. */
    static final Set<String> KAFKA_SETTINGS = Set.of("bootstrapServers", "bootstrap.servers", "namespace", "stateDir",
            "instanceId", "replayIndexWaitMillis", "replayThreads", "replayQueue", "producerMaxBlockMillis");

    public LogTailerConfig {
        require(httpHost != null && !httpHost.isBlank(), "http.host must not be blank");
        require(httpPort >= 0 && httpPort <= 65535, "http.port must be in [0, 65535], was " + httpPort);
        require(acceptQueue > 0, "http.acceptQueue must be > 0, was " + acceptQueue);
        require(maxThreads >= 8, "http.maxThreads must be >= 8, was " + maxThreads);
        require(idleTimeout != null && idleTimeout.toSeconds() > 0, "http.idleTimeoutSeconds must be > 0");
        require(authTokens != null && !authTokens.isEmpty() && authTokens.stream().noneMatch(String::isBlank),
                "auth.tokens must list at least one non-blank token");
        authTokens = List.copyOf(authTokens);
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
            require(e.getKey().matches("[a-z0-9][a-z0-9.-]*") && e.getValue() != null, "kafka." + e.getKey()
                    + " is neither a log-tailer setting (README.md) nor a Kafka client property (lower case, dots)");
        }
        require(kafkaNamespace != null, "kafka.namespace must not be null");
        require(kafkaStateDir != null, "kafka.stateDir must be set");
        require(instanceId != null && instanceId.matches("[A-Za-z0-9._-]+"),
                "kafka.instanceId must match [A-Za-z0-9._-]+, was " + instanceId);
        require(replayIndexWait != null && !replayIndexWait.isNegative(), "kafka.replayIndexWaitMillis must be >= 0");
        require(replayThreads > 0, "kafka.replayThreads must be > 0, was " + replayThreads);
        require(replayQueue > 0, "kafka.replayQueue must be > 0, was " + replayQueue);
        require(producerMaxBlock != null && producerMaxBlock.toMillis() > 0, "kafka.producerMaxBlockMillis must be > 0");
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

    /** True for a setting or client property whose value is never printed or logged. */
    public static boolean isSecret(String key) {
        return io.changestream.settings.SecretKeys.isSecret(key);
    }

    /** Every component, tokens and secret client properties masked. */
    @Override
    public String toString() {
        Map<String, String> masked = new TreeMap<>();
        kafkaClient.forEach((k, v) -> masked.put(k, isSecret(k) ? MASK : v));
        return "LogTailerConfig[httpHost=" + httpHost + ", httpPort=" + httpPort + ", acceptQueue=" + acceptQueue
                + ", maxThreads=" + maxThreads + ", idleTimeout=" + idleTimeout + ", authTokens=" + MASK
                + ", storageRoot=" + storageRoot + ", watchStorage=" + watchStorage + ", objectStore=" + objectStore
                + ", airflow=" + airflow
                + ", pipelineIds=" + pipelineIds + ", knownPipelines=" + knownPipelines + ", kafkaBootstrap="
                + kafkaBootstrap + ", kafkaClient=" + masked + ", kafkaNamespace=" + kafkaNamespace
                + ", kafkaStateDir=" + kafkaStateDir + ", instanceId=" + instanceId + ", replayIndexWait="
                + replayIndexWait + ", replayThreads=" + replayThreads + ", replayQueue=" + replayQueue
                + ", producerMaxBlock=" + producerMaxBlock + ", stream=" + stream + ", s3Limits=" + s3Limits
                + ", airflowLimits=" + airflowLimits + ", callerLimits=" + callerLimits + "]";
    }

    /** Reads {@code file} and applies the process environment's overrides. */
    public static LogTailerConfig load(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        }
        return from(props, System.getenv());
    }

    /** The config from properties, each key overridden by {@code LOG_TAILER_<KEY>} in {@code env} when present. */
    public static LogTailerConfig from(Properties props, Map<String, String> env) {
        return from(new Settings(props, env));
    }

    /**
     * Every key {@link #from(Properties, Map)} reads from {@code props}, in read order, with its default as README.md
     * shows it ({@code —} for none): the settings reference that {@code ConfigReferenceTest} checks.
     */
    static Map<String, String> declaredSettings(Properties props) {
        Settings s = new Settings(props, Map.of());
        from(s);
        return java.util.Collections.unmodifiableMap(s.declared);
    }

    private static LogTailerConfig from(Settings s) {
        StreamSettings d = StreamSettings.defaults();
        StreamSettings stream = new StreamSettings(
                s.seconds("stream.pollSeconds", d.poll()),
                s.integer("stream.linesPerRead", d.linesPerRead()),
                s.integer("stream.maxReadsPerTick", d.maxReadsPerTick()),
                s.longValue("stream.maxBytesPerTick", d.maxBytesPerTick()),
                s.longValue("stream.maxStreamBytes", d.maxStreamBytes()),
                s.longValue("stream.maxStreamSeconds", d.maxStreamSeconds()),
                s.longValue("stream.maxIdleSeconds", d.maxIdleSeconds()),
                s.longValue("stream.finishGraceSeconds", d.finishGraceSeconds()),
                s.longValue("stream.unknownRunGraceSeconds", d.unknownRunGraceSeconds()),
                s.longValue("stream.runProbeSeconds", d.runProbeSeconds()),
                s.longValue("stream.maxReplayBytes", d.maxReplayBytes()),
                s.longValue("stream.maxPendingBytesPerClient", d.maxPendingBytesPerClient()),
                s.integer("stream.maxActiveRuns", d.maxActiveRuns()),
                s.integer("stream.maxActiveConnections", d.maxActiveConnections()),
                s.longValue("stream.heartbeatSeconds", d.heartbeatSeconds()),
                s.longValue("stream.maxPendingBytesTotal", d.maxPendingBytesTotal()));
        int port = s.integer("http.port", 8590);
        String storage = s.string("storage.root", "");
        ObjectStoreSettings objectStore = objectStore(s);
        AirflowSettings airflow = airflow(s);
        Map<String, String> ids = new LinkedHashMap<>();
        for (String pair : s.list("pipelines.ids")) {
            int eq = pair.indexOf('=');
            require(eq > 0 && eq < pair.length() - 1, "pipelines.ids entries must be id=fqn, was '" + pair + "'");
            ids.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return new LogTailerConfig(
                s.string("http.host", "0.0.0.0"),
                port,
                s.integer("http.acceptQueue", 4096),
                s.integer("http.maxThreads", 200),
                Duration.ofSeconds(s.longValue("http.idleTimeoutSeconds", 60)),
                s.list("auth.tokens"),
                storage.isBlank() ? null : Path.of(storage),
                s.bool("storage.watch", true),
                objectStore,
                airflow,
                ids,
                Set.copyOf(s.list("pipelines.known")),
                s.string("kafka.bootstrapServers", s.string("kafka.bootstrap.servers", "")),
                s.kafkaClient(),
                s.string("kafka.namespace", "cs."),
                Path.of(s.string("kafka.stateDir", System.getProperty("java.io.tmpdir") + "/log-tailer-state",
                        "java.io.tmpdir/log-tailer-state")),
                s.string("kafka.instanceId", defaultInstanceId(port), "hostname-port"),
                Duration.ofMillis(s.longValue("kafka.replayIndexWaitMillis", 2000)),
                s.integer("kafka.replayThreads", 2),
                s.integer("kafka.replayQueue", 1000),
                Duration.ofMillis(s.longValue("kafka.producerMaxBlockMillis", 100)),
                stream,
                readLimits(s, ReadLimits.s3Defaults()),
                readLimits(s, ReadLimits.airflowDefaults()),
                callerLimits(s));
    }

    private static ReadLimits readLimits(Settings s, ReadLimits d) {
        String k = d.kind();
        return new ReadLimits(k, s.integer(k + ".maxActiveRuns", d.maxActiveRuns()),
                s.integer(k + ".maxConcurrentReads", d.maxConcurrentReads()),
                s.longValue(k + ".maxResponseBytes", d.maxResponseBytes()));
    }

    private static CallerLimits callerLimits(Settings s) {
        CallerLimits d = CallerLimits.defaults();
        return new CallerLimits(s.integer("limits.maxConnectionsPerToken", d.maxConnectionsPerToken()),
                s.integer("limits.maxRunsPerToken", d.maxRunsPerToken()),
                s.integer("limits.maxConnectionsPerAddress", d.maxConnectionsPerAddress()),
                s.integer("limits.maxRunsPerAddress", d.maxRunsPerAddress()));
    }

    private static ObjectStoreSettings objectStore(Settings s) {
        String bucket = s.string("s3.bucket", "");
        String endpoint = s.string("s3.endpoint", "");
        String region = s.string("s3.region", "us-east-1");
        String prefix = s.string("s3.prefix", "pipeline-logs");
        boolean pathStyle = s.bool("s3.pathStyle", false);
        String accessKey = s.string("s3.accessKeyId", "");
        String secretKey = s.string("s3.secretAccessKey", "");
        long timeout = s.longValue("s3.timeoutMillis", 5000);
        if (bucket.isBlank()) {
            return null;
        }
        return new ObjectStoreSettings(endpoint.isBlank() ? null : uri("s3.endpoint", endpoint), region, bucket,
                prefix, pathStyle, blankToNull(accessKey), blankToNull(secretKey), Duration.ofMillis(timeout));
    }

    private static AirflowSettings airflow(Settings s) {
        String url = s.string("airflow.url", "");
        String apiPath = s.string("airflow.apiPath", "api/v1/openmetadata");
        String taskId = s.string("airflow.taskId", "ingestion_task");
        String username = s.string("airflow.username", "");
        String password = s.string("airflow.password", "");
        String token = s.string("airflow.token", "");
        long timeout = s.longValue("airflow.timeoutMillis", 5000);
        if (url.isBlank()) {
            return null;
        }
        return new AirflowSettings(uri("airflow.url", url), apiPath, taskId, blankToNull(username),
                blankToNull(password), blankToNull(token), Duration.ofMillis(timeout));
    }

    private static URI uri(String key, String value) {
        try {
            return new URI(value);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(key + " is not a URL: " + e.getMessage());
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
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

    /** Property lookup with environment overrides and typed parsing that names the key on failure. */
    private static final class Settings {
        private static final String NONE = "—";
        private final Map<String, String> values = new HashMap<>();
        /** Key → default as documented, in first-read order. */
        private final Map<String, String> declared = new LinkedHashMap<>();

        Settings(Properties props, Map<String, String> env) {
            props.stringPropertyNames().forEach(k -> values.put(k, props.getProperty(k).trim()));
            env.forEach((k, v) -> {
                if (k.startsWith(ENV_PREFIX)) {
                    values.put("env:" + k.substring(ENV_PREFIX.length()), v.trim());
                }
            });
        }

        /**
         * The {@code kafka.*} keys that are not log-tailer settings, from the file and then from
         * {@code LOG_TAILER_KAFKA_*} (lower case, {@code _} as {@code .}), without the prefix.
         */
        Map<String, String> kafkaClient() {
            declared.putIfAbsent("kafka.<client property>", NONE);
            Set<String> fixedEnv = new java.util.HashSet<>();
            KAFKA_SETTINGS.forEach(k -> fixedEnv.add(envName("kafka." + k)));
            Map<String, String> out = new TreeMap<>();
            values.forEach((k, v) -> {
                if (k.startsWith("kafka.") && !KAFKA_SETTINGS.contains(k.substring("kafka.".length()))) {
                    out.putIfAbsent(k.substring("kafka.".length()), v);
                }
            });
            values.forEach((k, v) -> {
                if (k.startsWith("env:KAFKA_") && !fixedEnv.contains(k.substring("env:".length()))) {
                    out.put(k.substring("env:KAFKA_".length()).toLowerCase(Locale.ROOT).replace('_', '.'), v);
                }
            });
            return out;
        }

        private static String envName(String key) {
            return key.toUpperCase(Locale.ROOT).replace('.', '_');
        }

        String string(String key, String fallback) {
            return string(key, fallback, fallback == null || fallback.isEmpty() ? NONE : fallback);
        }

        /** As {@link #string(String, String)}, documenting the default as {@code shown} (it varies by host). */
        String string(String key, String fallback, String shown) {
            declared.putIfAbsent(key, shown);
            String env = values.get("env:" + envName(key));
            if (env != null) {
                return env;
            }
            return values.getOrDefault(key, fallback);
        }

        List<String> list(String key) {
            declared.putIfAbsent(key, NONE);
            String v = string(key, "");
            return v.isBlank() ? List.of() : Arrays.stream(v.split(",")).map(String::trim)
                    .filter(x -> !x.isEmpty()).toList();
        }

        boolean bool(String key, boolean fallback) {
            declared.putIfAbsent(key, Boolean.toString(fallback));
            String v = string(key, Boolean.toString(fallback)).toLowerCase(Locale.ROOT);
            if (!v.equals("true") && !v.equals("false")) {
                throw new IllegalArgumentException(key + " must be true or false, was '" + v + "'");
            }
            return Boolean.parseBoolean(v);
        }

        int integer(String key, int fallback) {
            return (int) longValue(key, fallback);
        }

        long longValue(String key, long fallback) {
            declared.putIfAbsent(key, Long.toString(fallback));
            String v = string(key, null);
            if (v == null || v.isBlank()) {
                return fallback;
            }
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a whole number, was '" + v + "'");
            }
        }

        Duration seconds(String key, Duration fallback) {
            declared.putIfAbsent(key, BigDecimal.valueOf(fallback.toNanos(), 9).stripTrailingZeros().toPlainString());
            String v = string(key, null);
            if (v == null || v.isBlank()) {
                return fallback;
            }
            try {
                return Duration.ofNanos(new BigDecimal(v).movePointRight(9).longValueExact());
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a number of seconds, was '" + v + "'");
            }
        }
    }
}
