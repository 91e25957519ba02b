package io.changestream.alerts.service;

import io.changestream.alerts.destination.CircuitBreakerSettings;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.HttpSettings;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.destination.SmtpSettings;
import io.changestream.alerts.destination.lineage.LineageSettings;
import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.alerts.subscription.AdminApiSettings;
import io.changestream.alerts.subscription.SubscriptionStoreSettings;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Everything the alert service is configured with, validated at construction (messages name the setting). Read by
 * {@link #load} from a properties file, each key overridable by an environment variable {@code ALERTS_<KEY>} (upper
 * case, dots and camel case as underscores, e.g. {@code ALERTS_ADMIN_BEARER_TOKEN}, {@code ALERTS_KAFKA_BOOTSTRAP_SERVERS}).
 * An unknown key fails the load. {@link #toString()} masks every secret (bearer token, SMTP password, Kafka
 * passwords and JAAS configs). Immutable.
 *
 * <p>Settings (default in brackets; {@link #SETTINGS} is the same table in code):
 * <ul>
 *   <li>{@code kafka.bootstrap.servers} (required) and any other {@code kafka.*} client property (security…),
 *       applied to every client of the service</li>
 *   <li>{@code topics.namespace} [cs.] — topic name prefix; {@code group.id} [changestream-alerts]</li>
 *   <li>{@code http.host} [0.0.0.0], {@code http.port} [8080; 0 = any free port]</li>
 *   <li>{@code admin.bearerToken} (required, ≥ 16 characters), {@code admin.user} [admin]</li>
 *   <li>{@code runtime.*} — the consumer runtime ({@link RuntimeConfig}: lanes [64 here], laneCapacity, maxAttempts [100 here:
 *       each subscription's {@code retries} decides first], initialBackoff, maxBackoff, processingTimeout [120 s
 *       here], commitInterval, revokeTimeout, closeTimeout…) and {@code runtime.kafka.*} consumer properties</li>
 *   <li>{@code ledger.ackTimeout} [10 s], {@code ledger.rebuildClockSkew} [10 s], {@code ledger.rebuildMaxRecords}
 *       [1000000], {@code ledger.rebuildTimeout} [30 s]</li>
 *   <li>{@code destinations.allowPrivateAddresses} [false], {@code destinations.platformUrl}
 *       [http://localhost:8585], {@code destinations.breaker.failureThreshold} [5],
 *       {@code destinations.breaker.openDuration} [30 s]</li>
 *   <li>{@code smtp.host} [none: no e-mail], {@code smtp.port} [587], {@code smtp.username}, {@code smtp.password},
 *       {@code smtp.startTls} [true], {@code smtp.from}</li>
 *   <li>{@code subscriptions.writeTimeout} [10 s], {@code subscriptions.startupTimeout} [60 s]</li>
 *   <li>{@code status.maxEntries} [100000] — destinations whose delivery status is tracked</li>
 * </ul>
 * Durations are ISO-8601 ({@code PT10S}) or milliseconds.
 *
 * @param kafka            client properties of every client (bootstrap.servers at least)
 * @param namespace        topic namespace
 * @param groupId          consumer group (and ledger group)
 * @param httpHost         HTTP bind address
 * @param httpPort         HTTP port (0: any free one)
 * @param admin            admin API settings (bearer token)
 * @param runtime          the consumer runtime over {@code changes} and {@code pipeline-status}
 * @param ledger           the delivery ledger
 * @param destinations     the destinations
 * @param subscriptions    the subscription store
 * @param statusMaxEntries destinations tracked by the status book
 */
public record AlertServiceConfig(Map<String, Object> kafka, String namespace, String groupId, String httpHost,
                                 int httpPort, AdminApiSettings admin, RuntimeConfig runtime, LedgerSettings ledger,
                                 DestinationSettings destinations, SubscriptionStoreSettings subscriptions,
                                 int statusMaxEntries) {

    /** Prefix of the environment overrides. */
    public static final String ENV_PREFIX = "ALERTS_";
    /** The service's default for {@code runtime.maxAttempts}: subscriptions' {@code retries} decide first. */
    public static final int DEFAULT_MAX_ATTEMPTS = 100;
    /**
     * The service's default for {@code runtime.lanes}: a lane is latency-bound (each event waits for its receiver's
     * answer and its ledger ack), so more lanes than the runtime's generic 16 keep up with 1,000 events/s.
     */
    public static final int DEFAULT_LANES = 64;
    /** The service's default for {@code runtime.processingTimeout}: several destinations at 10 + 12 s each. */
    public static final Duration DEFAULT_PROCESSING_TIMEOUT = Duration.ofSeconds(120);

    /** Every fixed key with its default ({@code null}: none) and meaning; {@code kafka.*}/{@code runtime.*} besides. */
    public static final List<Setting> SETTINGS = List.of(
            new Setting("topics.namespace", TopicCatalog.DEFAULT_NAMESPACE, "topic name prefix"),
            new Setting("group.id", "changestream-alerts", "consumer group; also the ledger's group"),
            new Setting("http.host", "0.0.0.0", "HTTP bind address"),
            new Setting("http.port", "8080", "HTTP port, 0 = any free port"),
            new Setting("admin.bearerToken", null, "bearer token of the admin API (required, >= 16 chars)"),
            new Setting("admin.user", "admin", "name recorded as updatedBy"),
            new Setting("ledger.ackTimeout", "PT10S", "wait for a ledger/DLQ ack before retrying"),
            new Setting("ledger.rebuildClockSkew", "PT10S", "read the ledger from this much before the committed "
                    + "record's timestamp"),
            new Setting("ledger.rebuildMaxRecords", "1000000", "ledger records one window rebuild reads at most"),
            new Setting("ledger.rebuildTimeout", "PT30S", "longest window rebuild (and wait for it)"),
            new Setting("destinations.allowPrivateAddresses", "false", "allow loopback/private targets (SSRF)"),
            new Setting("destinations.platformUrl", "http://localhost:8585", "platform base URL for links"),
            new Setting("destinations.breaker.failureThreshold", "5", "consecutive failures that open a circuit"),
            new Setting("destinations.breaker.openDuration", "PT30S", "how long an open circuit refuses"),
            new Setting("smtp.host", null, "SMTP host; unset = no e-mail destinations"),
            new Setting("smtp.port", "587", "SMTP port"),
            new Setting("smtp.username", null, "SMTP login"),
            new Setting("smtp.password", null, "SMTP password (secret)"),
            new Setting("smtp.startTls", "true", "require STARTTLS"),
            new Setting("smtp.from", null, "sender address (required with smtp.host)"),
            new Setting("subscriptions.writeTimeout", "PT10S", "wait for a subscription write to be visible"),
            new Setting("subscriptions.startupTimeout", "PT60S", "wait to read the subscriptions topic at start"),
            new Setting("status.maxEntries", "100000", "destinations whose delivery status is tracked"));

    /** One documented setting. */
    public record Setting(String key, String defaultValue, String doc) {
    }

    public AlertServiceConfig {
        Objects.requireNonNull(kafka, "kafka is required");
        kafka = Map.copyOf(kafka);
        if (kafka.get("bootstrap.servers") == null || kafka.get("bootstrap.servers").toString().isBlank()) {
            throw new IllegalArgumentException("kafka.bootstrap.servers is required");
        }
        Objects.requireNonNull(namespace, "topics.namespace is required");
        if (groupId == null || groupId.isBlank()) {
            throw new IllegalArgumentException("group.id is required");
        }
        if (httpHost == null || httpHost.isBlank()) {
            throw new IllegalArgumentException("http.host is required");
        }
        if (httpPort < 0 || httpPort > 65_535) {
            throw new IllegalArgumentException("http.port must be between 0 and 65535, was " + httpPort);
        }
        Objects.requireNonNull(admin, "admin is required");
        Objects.requireNonNull(runtime, "runtime is required");
        Objects.requireNonNull(ledger, "ledger is required");
        Objects.requireNonNull(destinations, "destinations is required");
        Objects.requireNonNull(subscriptions, "subscriptions is required");
        if (statusMaxEntries < 1) {
            throw new IllegalArgumentException("status.maxEntries must be >= 1, was " + statusMaxEntries);
        }
    }

    /** The topic catalog of {@link #namespace()}. */
    public TopicCatalog catalog() {
        return new TopicCatalog(namespace);
    }

    /** Reads {@code file}, applies the {@code ALERTS_*} overrides of {@code env}, validates. */
    public static AlertServiceConfig load(Path file, Map<String, String> env) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> settings = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> settings.put(k, props.getProperty(k).trim()));
        return from(settings, env);
    }

    /** The config from settings, each overridden by its {@code ALERTS_*} variable in {@code env}. */
    public static AlertServiceConfig from(Map<String, String> fileSettings, Map<String, String> env) {
        Map<String, String> s = new TreeMap<>(fileSettings);
        env.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX)) {
                s.put(keyOf(name.substring(ENV_PREFIX.length()), s), value.trim());
            }
        });
        for (String key : s.keySet()) {
            if (!key.startsWith("kafka.") && !key.startsWith(RuntimeConfig.PREFIX)
                    && SETTINGS.stream().noneMatch(x -> x.key().equals(key))) {
                throw new IllegalArgumentException("unknown setting " + key);
            }
        }
        Values v = new Values(s);
        v.get("kafka.bootstrap.servers", Function.identity());
        Map<String, Object> kafka = new HashMap<>();
        s.forEach((k, value) -> {
            if (k.startsWith("kafka.")) {
                kafka.put(k.substring("kafka.".length()), value);
            }
        });
        String namespace = v.get("topics.namespace", Function.identity());
        String groupId = v.get("group.id", Function.identity());
        TopicCatalog catalog = new TopicCatalog(namespace);

        Map<String, String> runtime = new HashMap<>();
        s.forEach((k, value) -> {
            if (k.startsWith(RuntimeConfig.PREFIX)) {
                runtime.put(k, value);
            }
        });
        runtime.put(RuntimeConfig.PREFIX + "topics", catalog.changes().name() + "," + catalog.pipelineStatus().name());
        kafka.forEach((k, value) -> runtime.putIfAbsent(RuntimeConfig.PREFIX + "kafka." + k, value.toString()));
        runtime.put(RuntimeConfig.PREFIX + "kafka.group.id", groupId);
        runtime.putIfAbsent(RuntimeConfig.PREFIX + "kafka.auto.offset.reset", "earliest");
        runtime.putIfAbsent(RuntimeConfig.PREFIX + "maxAttempts", Integer.toString(DEFAULT_MAX_ATTEMPTS));
        runtime.putIfAbsent(RuntimeConfig.PREFIX + "lanes", Integer.toString(DEFAULT_LANES));
        runtime.putIfAbsent(RuntimeConfig.PREFIX + "processingTimeout", DEFAULT_PROCESSING_TIMEOUT.toString());

        LedgerSettings ledger = new LedgerSettings(catalog.alertLedger().name(), groupId,
                v.get("ledger.ackTimeout", Values::duration), v.get("ledger.rebuildClockSkew", Values::duration),
                v.get("ledger.rebuildMaxRecords", Integer::parseInt), v.get("ledger.rebuildTimeout", Values::duration));
        HttpSettings http = HttpSettings.DEFAULTS;
        if (v.get("destinations.allowPrivateAddresses", Values::bool)) {
            http = http.allowingPrivateAddresses();
        }
        CircuitBreakerSettings breaker = new CircuitBreakerSettings(
                v.get("destinations.breaker.failureThreshold", Integer::parseInt),
                v.get("destinations.breaker.openDuration", Values::duration),
                CircuitBreakerSettings.DEFAULTS.halfOpenTrials(), CircuitBreakerSettings.DEFAULTS.maxBreakers());
        MessageSettings messages = new MessageSettings(v.get("destinations.platformUrl", URI::create),
                MessageSettings.DEFAULTS.maxChangeLines(), MessageSettings.DEFAULTS.maxValueChars());
        SmtpSettings smtp = null;
        String smtpHost = s.get("smtp.host");
        if (smtpHost != null && !smtpHost.isBlank()) {
            smtp = new SmtpSettings(smtpHost, v.get("smtp.port", Integer::parseInt), s.get("smtp.username"),
                    s.get("smtp.password"), v.get("smtp.startTls", Values::bool), s.get("smtp.from"),
                    Duration.ofSeconds(10), Duration.ofSeconds(12));
        }
        DestinationSettings destinations = new DestinationSettings(http, messages, breaker, smtp,
                LineageSettings.DEFAULTS);
        SubscriptionStoreSettings defaults = SubscriptionStoreSettings.of(catalog.subscriptions().name(), "unused");
        SubscriptionStoreSettings subscriptions = new SubscriptionStoreSettings(catalog.subscriptions().name(), kafka,
                defaults.pollTimeout(), v.get("subscriptions.writeTimeout", Values::duration),
                v.get("subscriptions.startupTimeout", Values::duration), defaults.closeTimeout());
        return new AlertServiceConfig(kafka, namespace, groupId, v.get("http.host", Function.identity()),
                v.get("http.port", Integer::parseInt),
                new AdminApiSettings(v.get("admin.bearerToken", Function.identity()),
                        v.get("admin.user", Function.identity())),
                RuntimeConfig.from(runtime), ledger, destinations, subscriptions,
                v.get("status.maxEntries", Integer::parseInt));
    }

    /** The settings key an {@code ALERTS_} variable names: a known or present key, else a dotted lower-case one. */
    static String keyOf(String envSuffix, Map<String, String> present) {
        String wanted = normalize(envSuffix);
        for (Setting setting : SETTINGS) {
            if (normalize(setting.key()).equals(wanted)) {
                return setting.key();
            }
        }
        for (String key : present.keySet()) {
            if (normalize(key).equals(wanted)) {
                return key;
            }
        }
        return envSuffix.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    private static String normalize(String key) {
        return key.toLowerCase(Locale.ROOT).replace(".", "").replace("_", "");
    }

    /** Whether a setting's value must never be shown. */
    static boolean isSecret(String key) {
        return io.changestream.topics.SecretSettings.isSecret(key);
    }

    /** The effective settings as {@code key = value} pairs, secrets masked. */
    public Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        kafka.forEach((k, value) -> out.put("kafka." + k, mask("kafka." + k, value)));
        out.put("topics.namespace", namespace);
        out.put("group.id", groupId);
        out.put("http.host", httpHost);
        out.put("http.port", Integer.toString(httpPort));
        out.put("admin.bearerToken", "********");
        out.put("admin.user", admin.user());
        out.put("runtime.topics", String.join(",", runtime.topics()));
        out.put("runtime.lanes", Integer.toString(runtime.lanes()));
        out.put("runtime.maxAttempts", Integer.toString(runtime.maxAttempts()));
        out.put("runtime.processingTimeout", runtime.processingTimeout().toString());
        out.put("runtime.closeTimeout", runtime.closeTimeout().toString());
        out.put("ledger", ledger.toString());
        out.put("destinations", destinations.toString());
        out.put("status.maxEntries", Integer.toString(statusMaxEntries));
        return out;
    }

    private static String mask(String key, Object value) {
        return isSecret(key) ? "********" : String.valueOf(value);
    }

    @Override
    public String toString() {
        return "AlertServiceConfig" + describe();
    }

    /** Typed lookups with defaults from {@link #SETTINGS}; a value that does not parse names its key. */
    private record Values(Map<String, String> settings) {
        <T> T get(String key, Function<String, T> parse) {
            String raw = settings.get(key);
            if (raw == null || raw.isBlank()) {
                raw = SETTINGS.stream().filter(x -> x.key().equals(key)).findFirst()
                        .map(Setting::defaultValue).orElse(null);
            }
            if (raw == null) {
                throw new IllegalArgumentException(key + " is required");
            }
            try {
                return parse.apply(raw.trim());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(key + " does not parse: '" + raw + "' (" + e.getMessage() + ")", e);
            }
        }

        static Duration duration(String raw) {
            return Character.isDigit(raw.charAt(0)) ? Duration.ofMillis(Long.parseLong(raw)) : Duration.parse(raw);
        }

        static boolean bool(String raw) {
            if (!raw.equalsIgnoreCase("true") && !raw.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException("expected true or false");
            }
            return Boolean.parseBoolean(raw);
        }
    }
}
