package io.changestream.alerts.service;

import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.limits.DeliveryConcurrency;
import io.changestream.alerts.diagnostics.DiagnosticsSettings;
import io.changestream.alerts.replay.ReplaySettings;
import io.changestream.alerts.digest.DigestSettings;
import io.changestream.alerts.filter.FilterLimits;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.alerts.retry.RetrySettings;
import io.changestream.alerts.status.StatusSettings;
import io.changestream.alerts.subscription.AdminApiSettings;
import io.changestream.alerts.subscription.SubscriptionQuotas;
import io.changestream.alerts.subscription.SubscriptionStoreSettings;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.settings.SettingsReference;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the alert service is configured with, validated at construction (messages name the setting). Every
 * setting is declared once beside the record it configures ({@link #SETTINGS} collects them: key, default, bounds,
 * meaning) and read by {@link #load} from a properties file, each key overridable by an environment variable
 * {@code ALERTS_<KEY>} (upper case, dots and camel case as underscores, e.g. {@code ALERTS_ADMIN_BEARER_TOKEN},
 * {@code ALERTS_KAFKA_BOOTSTRAP_SERVERS}) and by a system property {@code alerts.<key>} (decision 2701). Besides the
 * declared keys: {@code kafka.*} client properties (security…) applied to every client of the service, and
 * {@code runtime.kafka.*} consumer properties of the runtime. An unknown key fails the load. {@link #toString()}
 * masks every secret (bearer tokens, SMTP password, Kafka passwords and JAAS configs). Immutable.
 *
 * <p>The runtime's settings ({@code runtime.*}, {@link RuntimeConfig#SETTINGS}) keep their defaults except three the
 * service sets itself: {@link #LANES}, {@link #MAX_ATTEMPTS} (each subscription's {@code retries} decides first) and
 * {@link #PROCESSING_TIMEOUT}.
 *
 * @param kafka            client properties of every client (bootstrap.servers at least)
 * @param namespace        {@link #NAMESPACE}: topic namespace
 * @param groupId          {@link #GROUP_ID}: consumer group (and ledger group)
 * @param httpHost         {@link #HTTP_HOST}: HTTP bind address
 * @param httpPort         {@link #HTTP_PORT} (0: any free one)
 * @param admin            admin API settings (bearer token, quotas)
 * @param runtime          the consumer runtime over {@code changes} and {@code pipeline-status}
 * @param ledger           the delivery ledger
 * @param pipeline         the alert processor (at-most-once types, release wait, malformed records)
 * @param destinations     the destinations
 * @param subscriptions    the subscription store
 * @param status           the group-wide status view ({@code status.*})
 * @param filter           the filter compiler's and evaluator's bounds ({@code filter.*})
 * @param delivery         concurrent requests per destination and the blocking pool ({@code delivery.*})
 * @param ledgerLinger     {@link LedgerSettings#LINGER}: the ledger producer's {@code linger.ms}
 * @param digest           digests and grouping ({@code digest.*}, {@code grouping.*}; issue 13)
 * @param retry            the retry path ({@code retry.*}, decision 1120)
 * @param diagnostics      bounds of the platform's status endpoints' reads ({@code diagnostics.*}, issue 26)
 * @param replay           bounds of the replays an instance runs ({@code replay.*}, issue 26)
 */
public record AlertServiceConfig(Map<String, Object> kafka, String namespace, String groupId, String httpHost,
                                 int httpPort, AdminApiSettings admin, RuntimeConfig runtime, LedgerSettings ledger,
                                 PipelineSettings pipeline, DestinationSettings destinations,
                                 SubscriptionStoreSettings subscriptions, StatusSettings status,
                                 FilterSettings filter, DeliveryConcurrency delivery, Duration ledgerLinger,
                                 DigestSettings digest, RetrySettings retry,
                                 DiagnosticsSettings diagnostics, ReplaySettings replay) {

    /** Prefix of the environment overrides. */
    public static final String ENV_PREFIX = "ALERTS_";
    /** Prefix of the Kafka client properties every client of the service gets. */
    public static final String KAFKA_PREFIX = "kafka.";
    /** Prefix of the runtime's own consumer properties. */
    public static final String RUNTIME_KAFKA_PREFIX = RuntimeConfig.PREFIX + "kafka.";

    public static final Setting<String> BOOTSTRAP_SERVERS = Setting.string(KAFKA_PREFIX + "bootstrap.servers")
            .required().doc("Kafka bootstrap servers of every client");
    public static final Setting<String> NAMESPACE = Setting.string("topics.namespace")
            .defaultsTo(TopicCatalog.DEFAULT_NAMESPACE).doc("topic name prefix");
    public static final Setting<String> GROUP_ID = Setting.string("group.id").defaultsTo("changestream-alerts")
            .doc("consumer group; also the ledger's group");
    public static final Setting<String> HTTP_HOST = Setting.string("http.host").defaultsTo("0.0.0.0")
            .doc("HTTP bind address");
    public static final Setting<Integer> HTTP_PORT = Setting.integer("http.port").defaultsTo(8080)
            .between(0, 65_535).doc("HTTP port, 0 = any free port");
    /**
     * {@code runtime.lanes} here: a lane is latency-bound (each event waits for its receiver's answer and its ledger
     * ack), so more lanes than the runtime's generic 16 keep up with 1,000 events/s.
     */
    public static final Setting<Integer> LANES = RuntimeConfig.LANES.defaultsTo(64);
    /** {@code runtime.maxAttempts} here: subscriptions' {@code retries} decide first. */
    public static final Setting<Integer> MAX_ATTEMPTS = RuntimeConfig.MAX_ATTEMPTS.defaultsTo(100);
    /** {@code runtime.processingTimeout} here: several destinations at 10 + 12 s each. */
    public static final Setting<Duration> PROCESSING_TIMEOUT = RuntimeConfig.PROCESSING_TIMEOUT
            .defaultsTo(Duration.ofSeconds(120));
    /** The runtime's settings as the service reads them: its own defaults for {@link #LANES} and the two others. */
    public static final List<Setting<?>> RUNTIME_SETTINGS = RuntimeConfig.SETTINGS.stream()
            .map(s -> s.equals(LANES) ? LANES : s.equals(MAX_ATTEMPTS) ? MAX_ATTEMPTS
                    : s.equals(PROCESSING_TIMEOUT) ? PROCESSING_TIMEOUT : s)
            .collect(java.util.stream.Collectors.toUnmodifiableList());

    /** Every declared key of the service, in the order of the README's table; {@code kafka.*} besides. */
    public static final List<Setting<?>> SETTINGS = Setting.all(
            List.of(BOOTSTRAP_SERVERS, NAMESPACE, GROUP_ID, HTTP_HOST, HTTP_PORT), AdminApiSettings.SETTINGS,
            SubscriptionQuotas.SETTINGS, LedgerSettings.SETTINGS, DeliveryConcurrency.SETTINGS,
            PipelineSettings.SETTINGS, DestinationSettings.SETTINGS, SubscriptionStoreSettings.SETTINGS,
            StatusSettings.SETTINGS, DiagnosticsSettings.SETTINGS, FilterLimits.SETTINGS, DigestSettings.SETTINGS,
            RetrySettings.SETTINGS, ReplaySettings.SETTINGS, RUNTIME_SETTINGS);

    /**
     * The settings reference README.md's table shows: every declaration with its default, the two pass-through
     * prefixes, and the failure-detection properties the runtime fills in when the Kafka properties leave them out.
     */
    public static Map<String, String> reference() {
        Map<String, String> out = new LinkedHashMap<>(SettingsReference.defaults(SETTINGS));
        out.put(SettingsReference.passThrough(KAFKA_PREFIX), SettingsReference.NONE);
        out.put(SettingsReference.passThrough(RUNTIME_KAFKA_PREFIX), SettingsReference.NONE);
        out.put(RUNTIME_KAFKA_PREFIX + "session.timeout.ms",
                Integer.toString(RuntimeConfig.DEFAULT_SESSION_TIMEOUT_MS));
        out.put(RUNTIME_KAFKA_PREFIX + "heartbeat.interval.ms",
                Integer.toString(RuntimeConfig.DEFAULT_HEARTBEAT_INTERVAL_MS));
        return out;
    }

    public AlertServiceConfig {
        Objects.requireNonNull(kafka, "kafka is required");
        kafka = Map.copyOf(kafka);
        BOOTSTRAP_SERVERS.check(kafka.get("bootstrap.servers") == null ? null
                : blankToNull(kafka.get("bootstrap.servers").toString()));
        NAMESPACE.check(namespace);
        GROUP_ID.check(blankToNull(groupId));
        HTTP_HOST.check(blankToNull(httpHost));
        HTTP_PORT.check(httpPort);
        Objects.requireNonNull(admin, "admin is required");
        Objects.requireNonNull(runtime, "runtime is required");
        Objects.requireNonNull(ledger, "ledger is required");
        Objects.requireNonNull(pipeline, "pipeline is required");
        Object maxPoll = runtime.kafka().get("max.poll.interval.ms");
        long maxPollMillis = maxPoll == null ? 300_000 : Long.parseLong(maxPoll.toString());
        long release = runtime.revokeTimeout().toMillis() + pipeline.releaseTimeout().toMillis()
                + runtime.pollTimeout().toMillis();
        if (release >= maxPollMillis) {
            throw new IllegalArgumentException("runtime.revokeTimeout + pipeline.releaseTimeout + runtime.pollTimeout ("
                    + release + " ms) must stay below runtime.kafka.max.poll.interval.ms (" + maxPollMillis + " ms)");
        }
        ProducerAcks.boundedBy(kafka, ledger.ackTimeout(), "ledger.ackTimeout"); // names both settings when not
        Objects.requireNonNull(destinations, "destinations is required");
        Objects.requireNonNull(subscriptions, "subscriptions is required");
        Objects.requireNonNull(status, "status is required");
        Objects.requireNonNull(filter, "filter is required");
        Objects.requireNonNull(delivery, "delivery is required");
        LedgerSettings.LINGER.check(ledgerLinger);
        Objects.requireNonNull(digest, "digest is required");
        Objects.requireNonNull(retry, "retry is required");
    }

    /** The topic catalog of {@link #namespace()}. */
    public TopicCatalog catalog() {
        return new TopicCatalog(namespace);
    }

    /** Reads {@code file}, applies the {@code ALERTS_*} overrides of {@code env}, validates. */
    public static AlertServiceConfig load(Path file, Map<String, String> env) {
        try {
            return from(SettingsReader.readFile(file), env);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The config from settings, each overridden by its {@code ALERTS_*} variable in {@code env} and its
     * {@code alerts.*} system property.
     */
    public static AlertServiceConfig from(Map<String, String> fileSettings, Map<String, String> env) {
        SettingsReader r = SettingsReader.layered(fileSettings, ENV_PREFIX, env, System.getProperties(), SETTINGS);
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", r.get(BOOTSTRAP_SERVERS));
        kafka.putAll(r.passThrough(KAFKA_PREFIX));
        String groupId = r.get(GROUP_ID);
        TopicCatalog catalog = new TopicCatalog(r.get(NAMESPACE));

        Map<String, Object> runtimeKafka = new HashMap<>(kafka);
        runtimeKafka.putIfAbsent("auto.offset.reset", "earliest");
        runtimeKafka.putAll(r.passThrough(RUNTIME_KAFKA_PREFIX));
        runtimeKafka.put("group.id", groupId);
        RuntimeConfig.Builder builder = RuntimeConfig.builder(
                List.of(catalog.changes().name(), catalog.pipelineStatus().name()), runtimeKafka);
        RUNTIME_SETTINGS.forEach(setting -> builder.read(r, setting));
        RuntimeConfig runtime = builder.build();

        LedgerSettings ledger = LedgerSettings.from(r, catalog.alertLedger().name(), groupId);
        DestinationSettings destinations = DestinationSettings.from(r, catalog);
        if (destinations.http().maxRequestTime().compareTo(runtime.processingTimeout()) >= 0) {
            throw new IllegalArgumentException("delivery.maxRequestTime (" + destinations.http().maxRequestTime()
                    + ") must be below runtime.processingTimeout (" + runtime.processingTimeout() + "): a request may "
                    + "not outlive the processing of its event");
        }
        AlertServiceConfig config = new AlertServiceConfig(kafka, catalog.namespace(), groupId, r.get(HTTP_HOST),
                r.get(HTTP_PORT), AdminApiSettings.from(r), runtime, ledger,
                PipelineSettings.from(r, catalog.changes().name(), catalog.pipelineStatus().name(),
                        runtime.initialBackoff(), runtime.maxBackoff()),
                destinations, SubscriptionStoreSettings.from(r, catalog.subscriptions().name(), kafka),
                StatusSettings.from(r, catalog.alertLedger().name(), catalog.alertDlq().name(), groupId),
                FilterSettings.DEFAULTS.withLimits(FilterLimits.from(r)), DeliveryConcurrency.from(r),
                r.get(LedgerSettings.LINGER),
                DigestSettings.from(r, catalog.alertDigest().name(), groupId + ".digest", ledger.ackTimeout()),
                RetrySettings.from(r, catalog.alertRetry().name(), catalog.alertDestinations().name(), groupId,
                        ledger.ackTimeout()),
                DiagnosticsSettings.from(r), ReplaySettings.from(r));
        r.refuseUnknown("alert-consumer/README.md");
        return config;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Every component, secrets (tokens, passwords, secret Kafka properties) masked. */
    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
