package io.changestream.alerts.service;

import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import io.changestream.alerts.destination.limits.DeliveryConcurrency;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.alerts.destination.limits.RateLimit;
import io.changestream.alerts.destination.limits.RateLimitSettings;
import io.changestream.alerts.destination.email.SmtpSettings;
import io.changestream.alerts.destination.lineage.LineageSettings;
import io.changestream.alerts.digest.DigestSettings;
import io.changestream.alerts.filter.FilterLimits;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.impact.ImpactSettings;
import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.alerts.status.StatusSettings;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.alerts.retry.RetrySettings;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.alerts.subscription.AdminApiSettings;
import io.changestream.alerts.subscription.SubscriptionQuotas;
import io.changestream.alerts.subscription.SubscriptionStoreSettings;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.SubscriptionType;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 *   <li>{@code ledger.ackTimeout} [10 s], {@code ledger.dedupeHorizon} [24 h], {@code ledger.windowMaxBytes}
 *       [64 MiB], {@code ledger.rebuildMaxRecords} [1000000], {@code ledger.rebuildTimeout} [30 s],
 *       {@code ledger.rebuildThreads} [4], {@code ledger.linger} [0], {@code ledger.batchMaxBytes} [262144]</li>
 *   <li>{@code delivery.maxConcurrentPerDestination} [32], {@code delivery.maxQueuedPerDestination} [100],
 *       {@code delivery.maxQueueWait} [30 s], {@code delivery.stallTimeout} [2 s], {@code delivery.maxRequestTime} [30 s],
 *       {@code delivery.maxConnectionsPerHost} [64], {@code delivery.blockingThreads} [16]</li>
 *   <li>{@code delivery.atMostOnceTypes} [none], {@code pipeline.releaseTimeout} [30 s; with
 *       {@code runtime.revokeTimeout} and {@code runtime.pollTimeout} below {@code max.poll.interval.ms}],
 *       {@code pipeline.malformedMaxChars} [65536]</li>
 *   <li>{@code destinations.allowPrivateAddresses} [false], {@code destinations.platformUrl}
 *       [http://localhost:8585], {@code destinations.breaker.failureThreshold} [5],
 *       {@code destinations.breaker.openDuration} [30 s]</li>
 *   <li>{@code destinations.platform.bearerToken} [none], {@code destinations.platform.timeout} [5 s],
 *       {@code destinations.platform.cacheTtl} [5 min], {@code destinations.platform.cacheMaxEntries} [10000] — the
 *       platform's API for e-mail receivers by role</li>
 *   <li>{@code destinations.rateLimit.<type>} for webhook [off], slack [1/s], msTeams [4/s], gChat [1/s],
 *       email [10/s], openLineage [off]; {@code destinations.rateLimit.maxWait} [5 min],
 *       {@code destinations.rateLimit.maxDestinations} [10000]</li>
 *   <li>{@code lineage.namespace} [openmetadata], {@code lineage.statuses} [failed,partialSuccess,stopped,success],
 *       {@code lineage.gzipThresholdBytes} [16384], {@code lineage.maxBatchEvents} [100],
 *       {@code lineage.batchWindow} [100 ms]</li>
 *   <li>{@code smtp.host} [none: no e-mail], {@code smtp.port} [587], {@code smtp.username}, {@code smtp.password},
 *       {@code smtp.startTls} [true], {@code smtp.from}</li>
 *   <li>{@code subscriptions.writeTimeout} [10 s], {@code subscriptions.startupTimeout} [60 s]</li>
 *   <li>{@code status.maxEntries} [100000] — (subscription, destination) entries the {@code /status} view keeps;
 *       {@code status.dedupeEntries} [200000] — recent ledger/DLQ keys it remembers to count a re-written record
 *       once; {@code status.catchUp} [PT2S] — how long {@code /status} waits for the view to reach the topics'
 *       ends; {@code status.restartBackoff} [1 s], {@code status.restartMaxBackoff} [30 s],
 *       {@code status.maxRestarts} [10] — the view's reader restarts (issue 21)</li>
 *   <li>quotas of the admin API (issue 21): {@code quota.subscriptions} [10000],
 *       {@code quota.destinationsPerSubscription} [50], {@code quota.filterProgram} [100000],
 *       {@code quota.listLimit} [1000]</li>
 *   <li>guards (alert-consumer README, Security): {@code admin.maxRequestBytes} [262144],
 *       {@code filter.maxPatternLength} [1024], {@code filter.maxPatternProgram} [10000],
 *       {@code filter.maxSubjectLength} [4096], {@code destinations.lineage.kafkaTopics}
 *       [&lt;namespace&gt;openlineage], {@code destinations.proxy} [none], {@code subscriptions.staleAfter} [10 s],
 *       {@code subscriptions.maxStaleness} [30 s], {@code subscriptions.restartBackoff} [1 s],
 *       {@code subscriptions.restartMaxBackoff} [30 s], {@code subscriptions.maxRestarts} [10]</li>
 *   <li>digests and grouping (issue 13): {@code digest.topChanges} [20], {@code digest.maxEntryBytes} [16384],
 *       {@code digest.maxWindows} [10000], {@code digest.maxListedBytes} [64 MiB], {@code digest.zone} [UTC], {@code digest.tick} [1 s],
 *       {@code digest.retryBackoff} [10 s], {@code grouping.groupWait} [30 s], {@code grouping.groupInterval}
 *       [5 min], {@code grouping.repeatInterval} [4 h]</li>
 *   <li>the platform's status endpoints (issue 26): {@code diagnostics.sampleRecords} [1000],
 *       {@code diagnostics.scanTime} [150 ms], {@code diagnostics.listRecords} [20000],
 *       {@code diagnostics.dlqDepthInterval} [30 s]</li>
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
 * @param pipeline         the alert processor (at-most-once types, release wait, malformed records)
 * @param destinations     the destinations
 * @param subscriptions    the subscription store
 * @param status           the group-wide status view ({@code status.*})
 * @param filter           the filter compiler's and evaluator's bounds ({@code filter.*})
 * @param delivery         concurrent requests per destination and the blocking pool ({@code delivery.*})
 * @param ledgerLinger     the ledger producer's {@code linger.ms} ({@code ledger.linger}, default 0: the ledger
 *                         group-commits its batches itself, decision 2201, so a linger only adds latency)
 * @param digest           digests and grouping ({@code digest.*}, {@code grouping.*}; issue 13)
 * @param retry            the retry path ({@code retry.*}, decision 1120)
 * @param diagnostics      bounds of the platform's status endpoints' reads ({@code diagnostics.*}, issue 26)
 */
public record AlertServiceConfig(Map<String, Object> kafka, String namespace, String groupId, String httpHost,
                                 int httpPort, AdminApiSettings admin, RuntimeConfig runtime, LedgerSettings ledger,
                                 PipelineSettings pipeline, DestinationSettings destinations,
                                 SubscriptionStoreSettings subscriptions, StatusSettings status,
                                 FilterSettings filter, DeliveryConcurrency delivery, Duration ledgerLinger,
                                 DigestSettings digest, RetrySettings retry,
                                 io.changestream.alerts.diagnostics.DiagnosticsSettings diagnostics) {

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
            new Setting("admin.maxRequestBytes", "262144", "largest HTTP request body; larger is a 413"),
            new Setting("quota.subscriptions", "10000", "subscriptions the service holds; one more is a 400"),
            new Setting("quota.destinationsPerSubscription", "50", "destinations of one subscription; more is a 400"),
            new Setting("quota.filterProgram", "100000", "size of one subscription's compiled filter (operators, "
                    + "arguments, RE2/J programs); larger is a 400"),
            new Setting("quota.listLimit", "1000", "largest page (and default limit) of GET /api/v1/events/"
                    + "subscriptions; a larger limit is a 400"),
            new Setting("ledger.ackTimeout", "PT10S", "wait for a ledger/DLQ ack before retrying"),
            new Setting("ledger.dedupeHorizon", "PT24H", "a repeat of a pair settled this long ago is still skipped"),
            new Setting("ledger.windowMaxBytes", "67108864", "memory of all ledger windows; oldest pairs trimmed"),
            new Setting("ledger.rebuildMaxRecords", "1000000", "newest ledger records one window rebuild reads"),
            new Setting("ledger.rebuildTimeout", "PT30S", "deadline of the rebuilds of one assignment"),
            new Setting("ledger.rebuildThreads", "4", "window rebuilds running at once"),
            new Setting("ledger.linger", "PT0S", "the ledger producer's linger.ms (batches form while one is on its way)"),
            new Setting("ledger.batchMaxBytes", "262144", "most bytes of one ledger batch (group commit)"),
            new Setting("delivery.maxConcurrentPerDestination", "32", "requests in flight to one destination; "
                    + "more wait in its queue"),
            new Setting("delivery.maxQueuedPerDestination", "100", "requests waiting for one destination; one "
                    + "more sheds the queue with it to the retry path (not sent, not an attempt)"),
            new Setting("delivery.maxQueueWait", "PT30S", "longest a request waits for its destination's slot; "
                    + "later, it is shed to the retry path"),
            new Setting("delivery.stallTimeout", "PT2S", "a destination with every slot busy that answers "
                    + "nothing this long sheds its queue to the retry path"),
            new Setting("delivery.maxRequestTime", "PT30S", "longest one HTTP request may take (a destination's "
                    + "timeout + readTimeout above it is a 400); below runtime.processingTimeout"),
            new Setting("delivery.maxConnectionsPerHost", "64", "pooled HTTP connections per scheme/host/port"),
            new Setting("delivery.blockingThreads", "16", "threads sending e-mail and OpenLineage (blocking "
                    + "clients)"),
            new Setting("delivery.atMostOnceTypes", "", "destination types sent at most once (e.g. Email,Slack)"),
            new Setting("pipeline.releaseTimeout", "PT30S", "wait for a released partition's running delivery"),
            new Setting("pipeline.malformedMaxChars", "65536", "raw value kept in a malformed record's dead letter"),
            new Setting("destinations.allowPrivateAddresses", "false", "allow loopback/private targets (SSRF)"),
            new Setting("destinations.proxy", null, "host:port of an HTTP proxy for destinations; unset = none "
                    + "(JVM proxy properties are ignored)"),
            new Setting("destinations.lineage.kafkaTopics", null, "topics the OpenLineage Kafka transport may "
                    + "write, comma-separated; default <topics.namespace>openlineage; never a catalog topic"),
            new Setting("destinations.platformUrl", "http://localhost:8585", "platform base URL for links"),
            new Setting("destinations.platform.bearerToken", null, "token for the platform's API (e-mail roles)"),
            new Setting("destinations.platform.timeout", "PT5S", "timeout of one platform API call"),
            new Setting("destinations.platform.cacheTtl", "PT5M", "how long resolved users/teams/admins are kept"),
            new Setting("destinations.platform.cacheMaxEntries", "10000", "most users/teams/lists cached"),
            new Setting("destinations.breaker.failureThreshold", "5", "consecutive failures that open a circuit"),
            new Setting("destinations.breaker.openDuration", "PT30S", "how long an open circuit refuses"),
            new Setting("destinations.rateLimit.webhook", limit(SubscriptionType.WEBHOOK),
                    "token bucket per Webhook destination (n/s|min|h)"),
            new Setting("destinations.rateLimit.slack", limit(SubscriptionType.SLACK), "per Slack destination"),
            new Setting("destinations.rateLimit.msTeams", limit(SubscriptionType.MS_TEAMS), "per MS Teams destination"),
            new Setting("destinations.rateLimit.gChat", limit(SubscriptionType.G_CHAT), "per Google Chat destination"),
            new Setting("destinations.rateLimit.email", limit(SubscriptionType.EMAIL), "per e-mail destination"),
            new Setting("destinations.rateLimit.openLineage", limit(SubscriptionType.OPEN_LINEAGE),
                    "per OpenLineage destination"),
            new Setting("destinations.rateLimit.maxWait", "PT5M", "longest wait for a reserved send slot"),
            new Setting("destinations.rateLimit.maxDestinations", "10000", "destinations holding a rate bucket"),
            new Setting("lineage.namespace", "openmetadata", "OpenLineage job namespace"),
            new Setting("lineage.statuses", "failed,partialSuccess,stopped,success", "run states sent as "
                    + "OpenLineage events (the platform's names)"),
            new Setting("lineage.gzipThresholdBytes", "16384", "OpenLineage HTTP bodies above this are gzipped"),
            new Setting("lineage.maxBatchEvents", "100", "most events in one OpenLineage batch request"),
            new Setting("lineage.batchWindow", "PT0.1S", "wait for more events to one batch endpoint, 0 = none"),
            new Setting("impact.states", "failed,stopped", "run states whose downstream impact is resolved from "
                    + "the platform's lineage (the platform's names)"),
            new Setting("impact.timeout", "PT2S", "longest a delivery waits for the impact; then it goes out "
                    + "without it and says so"),
            new Setting("impact.downstreamDepth", "3", "lineage depth below each output of a run (1..10)"),
            new Setting("impact.maxOutputs", "20", "most output assets of one pipeline looked at"),
            new Setting("impact.maxNodes", "200", "most downstream assets kept; more are counted as truncated"),
            new Setting("impact.cacheTtl", "PT1M", "how long a pipeline's resolved impact is reused"),
            new Setting("impact.cacheMaxEntries", "10000", "most pipelines cached"),
            new Setting("impact.topAssets", "10", "impacted assets listed by name in a message; the rest counted"),
            new Setting("impact.tiers", "", "tiers the impact is limited to (e.g. Tier.Tier1,Tier.Tier2); empty = "
                    + "every asset"),
            new Setting("impact.tagLookupTimeout", "PT0.5S", "longest matchAnyTag waits for a run's pipeline tags"),
            new Setting("smtp.host", null, "SMTP host; unset = no e-mail destinations"),
            new Setting("smtp.port", "587", "SMTP port"),
            new Setting("smtp.username", null, "SMTP login"),
            new Setting("smtp.password", null, "SMTP password (secret)"),
            new Setting("smtp.startTls", "true", "require STARTTLS"),
            new Setting("smtp.from", null, "sender address (required with smtp.host)"),
            new Setting("subscriptions.writeTimeout", "PT10S", "wait for a subscription write to be visible"),
            new Setting("subscriptions.startupTimeout", "PT60S", "wait to read the subscriptions topic at start"),
            new Setting("subscriptions.staleAfter", "PT10S", "view older than this: not ready"),
            new Setting("subscriptions.maxStaleness", "PT30S", "view older than this: processing pauses"),
            new Setting("subscriptions.restartBackoff", "PT1S", "first wait before a dead reader is restarted"),
            new Setting("subscriptions.restartMaxBackoff", "PT30S", "longest wait between reader restarts"),
            new Setting("subscriptions.maxRestarts", "10", "consecutive failed restarts before /health/live fails"),
            new Setting("status.maxEntries", "100000", "(subscription, destination) entries the /status view keeps"),
            new Setting("status.dedupeEntries", "200000", "recent ledger/DLQ keys /status remembers to count a "
                    + "re-written record once"),
            new Setting("status.catchUp", "PT2S", "how long /status waits for its view to reach the topics' ends"),
            new Setting("status.restartBackoff", "PT1S", "first wait before a dead /status view reader is restarted"),
            new Setting("status.restartMaxBackoff", "PT30S", "longest wait between /status view reader restarts"),
            new Setting("status.maxRestarts", "10", "consecutive failed /status reader restarts before /health/live "
                    + "fails"),
            new Setting("diagnostics.sampleRecords", "1000", "unprocessed records diagnosticInfo reads to count a "
                    + "subscription's relevant events; beyond them the count is estimated"),
            new Setting("diagnostics.scanTime", "PT0.15S", "time budget of that read"),
            new Setting("diagnostics.listRecords", "20000", "newest alert-ledger / alert-dlq records the sent and "
                    + "failed event lists read"),
            new Setting("diagnostics.dlqDepthInterval", "PT30S", "how often changestream_alert_dlq_depth (records held "
                    + "in alert-dlq: log end minus log start, summed over its partitions) is read from Kafka"),
            new Setting("filter.maxPatternLength", "1024", "longest matchAnyEntityFqn regular expression, chars"),
            new Setting("filter.maxPatternProgram", "10000", "largest compiled RE2/J program of one pattern"),
            new Setting("filter.maxSubjectLength", "4096", "longest FQN a pattern is matched against; longer is an "
                    + "evaluation error"),
            // issue 13: digests (Scheduled subscriptions) and grouping
            new Setting("digest.topChanges", "20", "changes listed in full per digest/group message (and kept in "
                    + "memory per open window); the rest are counted"),
            new Setting("digest.maxEntryBytes", "16384", "largest event kept for a digest; larger ones lose their "
                    + "entity and change description"),
            new Setting("digest.maxWindows", "10000", "open digest/group windows per instance; beyond, the oldest "
                    + "is sent early"),
            new Setting("digest.maxListedBytes", "67108864", "bytes of listed changes all open windows hold; "
                    + "beyond, changes are counted, not listed"),
            new Setting("digest.zone", "UTC", "time zone of Daily/Weekly/Monthly and cron schedules"),
            new Setting("digest.tick", "PT1S", "how often due digest/group windows are looked for"),
            new Setting("digest.retryBackoff", "PT10S", "wait before a failed digest/group message is sent again"),
            new Setting("digest.maxInFlightPerDestination", "4", "digest/group messages being sent to one "
                    + "destination at once; more wait (a slow receiver delays only its own)"),
            new Setting("digest.sendTimeout", "PT30S", "longest one digest/group send may take, then it is "
                    + "cancelled and counts as a failed attempt"),
            new Setting("digest.blockingThreads", "4", "threads that send digest e-mails (SMTP blocks)"),
            new Setting("grouping.groupWait", "PT30S", "default wait of a new group before its first message "
                    + "(Alertmanager group_wait)"),
            new Setting("grouping.groupInterval", "PT5M", "default wait after a group's message before its next "
                    + "(Alertmanager group_interval)"),
            new Setting("grouping.repeatInterval", "PT4H", "default time a group is remembered after its last "
                    + "message (Alertmanager repeat_interval; no change is sent twice)"),
            // the retry path (decision 1120)
            new Setting("retry.inlineBudget", "PT30S", "longest a pair waits inline (delay queue) from its first "
                    + "failure; a longer wait hands it to alert-retry"),
            new Setting("retry.maxRecordBytes", "1048576", "largest retry record; a larger pair stays inline"),
            new Setting("retry.lanes", "8", "worker threads that handle retry-path send results (sends are "
                    + "asynchronous)"),
            new Setting("retry.maxHeld", "8000", "retry records held in memory in all (beyond: each destination "
                    + "holds its head, the rest is read again from alert-retry)"),
            new Setting("retry.maxHeldPerDestination", "1000", "retry records of one destination on one partition "
                    + "held in memory (the rest is read again from alert-retry; nobody else waits)"),
            new Setting("retry.maxConcurrentPerDestination", "8", "retry records of one destination on one "
                    + "partition tried at once, in order per entity (those settled out of order are published with "
                    + "the progress, so a new owner skips them)"),
            new Setting("retry.recheckInterval", "PT1S", "how often a waiting or parked retry record looks again"),
            new Setting("retry.initialBackoff", "PT1M", "first retry-path wait without a Retry-After"),
            new Setting("retry.maxBackoff", "PT1H", "longest retry-path wait without a Retry-After"),
            new Setting("retry.suspendAfterFailures", "20", "consecutive retry-path failures that suspend a "
                    + "destination, 0 = never"),
            new Setting("retry.suspendAfterDuration", "P3D", "failing this long in the retry path suspends a "
                    + "destination"),
            new Setting("retry.maxDestinations", "10000", "destinations whose retry state an instance keeps"),
            new Setting("retry.dedupeEntries", "100000", "recent retry-path settlements remembered (a second "
                    + "hand-off of a pair settles once)"),
            new Setting("retry.publishInterval", "PT0.5S", "how often retry-path progress is published"),
            new Setting("retry.stateCatchUp", "PT30S", "wait at start to read alert-destinations"));

    private static String limit(SubscriptionType type) {
        return RateLimitSettings.DEFAULTS.defaultFor(type).toString();
    }

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
        Objects.requireNonNull(ledgerLinger, "ledger.linger is required");
        if (ledgerLinger.isNegative() || ledgerLinger.toMillis() > 1_000) {
            throw new IllegalArgumentException("ledger.linger must be between 0 and 1 s, was " + ledgerLinger);
        }
        Objects.requireNonNull(digest, "digest is required");
        Objects.requireNonNull(retry, "retry is required");
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
                v.get("ledger.ackTimeout", Values::duration), v.get("ledger.dedupeHorizon", Values::duration),
                v.get("ledger.windowMaxBytes", Long::parseLong), v.get("ledger.rebuildMaxRecords", Integer::parseInt),
                v.get("ledger.rebuildTimeout", Values::duration), v.get("ledger.rebuildThreads", Integer::parseInt),
                v.get("ledger.batchMaxBytes", Integer::parseInt));
        RuntimeConfig runtimeConfig = RuntimeConfig.from(runtime);
        PipelineSettings pipeline = new PipelineSettings(catalog.changes().name(), catalog.pipelineStatus().name(),
                runtimeConfig.initialBackoff(), runtimeConfig.maxBackoff(),
                v.get("delivery.atMostOnceTypes", Values::types), v.get("pipeline.releaseTimeout", Values::duration),
                v.get("pipeline.malformedMaxChars", Integer::parseInt));
        HttpSettings http = HttpSettings.DEFAULTS;
        if (v.get("destinations.allowPrivateAddresses", Values::bool)) {
            http = http.allowingPrivateAddresses();
        }
        http = http.withProxy(s.get("destinations.proxy"))
                .withMaxRequestTime(v.get("delivery.maxRequestTime", Values::duration));
        if (http.maxRequestTime().compareTo(runtimeConfig.processingTimeout()) >= 0) {
            throw new IllegalArgumentException("delivery.maxRequestTime (" + http.maxRequestTime() + ") must be below "
                    + "runtime.processingTimeout (" + runtimeConfig.processingTimeout() + "): a request may not "
                    + "outlive the processing of its event");
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
        Map<SubscriptionType, RateLimit> limits = new EnumMap<>(SubscriptionType.class);
        for (SubscriptionType type : List.of(SubscriptionType.WEBHOOK, SubscriptionType.SLACK,
                SubscriptionType.MS_TEAMS, SubscriptionType.G_CHAT, SubscriptionType.EMAIL,
                SubscriptionType.OPEN_LINEAGE)) {
            limits.put(type, v.get(RateLimitSettings.key(type), RateLimit::parse));
        }
        RateLimitSettings rateLimits = new RateLimitSettings(limits,
                v.get("destinations.rateLimit.maxWait", Values::duration),
                v.get("destinations.rateLimit.maxDestinations", Integer::parseInt),
                RateLimitSettings.DEFAULTS.maxReservations());
        LineageSettings lineage = new LineageSettings(v.get("lineage.namespace", Function.identity()),
                LineageSettings.DEFAULTS.producer(), v.get("lineage.statuses", LineageSettings::parseStatuses),
                v.get("lineage.gzipThresholdBytes", Integer::parseInt),
                v.get("lineage.maxBatchEvents", Integer::parseInt), v.get("lineage.batchWindow", Values::duration),
                messages.platformUrl(), lineageTopics(s.get("destinations.lineage.kafkaTopics"), catalog));
        PlatformSettings platform = new PlatformSettings(messages.platformUrl(),
                s.get("destinations.platform.bearerToken"), v.get("destinations.platform.timeout", Values::duration),
                v.get("destinations.platform.cacheTtl", Values::duration),
                v.get("destinations.platform.cacheMaxEntries", Integer::parseInt),
                PlatformSettings.DEFAULTS.maxAdminPages());
        ImpactSettings impact = new ImpactSettings(v.get("impact.states", LineageSettings::parseStatuses),
                v.get("impact.timeout", Values::duration), v.get("impact.downstreamDepth", Integer::parseInt),
                v.get("impact.maxOutputs", Integer::parseInt), v.get("impact.maxNodes", Integer::parseInt),
                v.get("impact.cacheTtl", Values::duration), v.get("impact.cacheMaxEntries", Integer::parseInt),
                v.get("impact.topAssets", Integer::parseInt), v.get("impact.tiers", ImpactSettings::parseTiers),
                v.get("impact.tagLookupTimeout", Values::duration));
        DestinationSettings destinations = new DestinationSettings(http, messages, breaker, smtp, lineage,
                rateLimits, platform, impact);
        SubscriptionStoreSettings defaults = SubscriptionStoreSettings.of(catalog.subscriptions().name(), "unused");
        SubscriptionStoreSettings subscriptions = new SubscriptionStoreSettings(catalog.subscriptions().name(), kafka,
                defaults.pollTimeout(), v.get("subscriptions.writeTimeout", Values::duration),
                v.get("subscriptions.startupTimeout", Values::duration), defaults.closeTimeout())
                .withHealth(new SubscriptionStoreSettings.ReaderHealth(
                        v.get("subscriptions.staleAfter", Values::duration),
                        v.get("subscriptions.maxStaleness", Values::duration),
                        v.get("subscriptions.restartBackoff", Values::duration),
                        v.get("subscriptions.restartMaxBackoff", Values::duration),
                        v.get("subscriptions.maxRestarts", Integer::parseInt)));
        return new AlertServiceConfig(kafka, namespace, groupId, v.get("http.host", Function.identity()),
                v.get("http.port", Integer::parseInt),
                new AdminApiSettings(v.get("admin.bearerToken", Function.identity()),
                        v.get("admin.user", Function.identity()), v.get("admin.maxRequestBytes", Long::parseLong),
                        new SubscriptionQuotas(v.get("quota.subscriptions", Integer::parseInt),
                                v.get("quota.destinationsPerSubscription", Integer::parseInt),
                                v.get("quota.filterProgram", Long::parseLong),
                                v.get("quota.listLimit", Integer::parseInt))),
                runtimeConfig, ledger, pipeline, destinations, subscriptions,
                new StatusSettings(catalog.alertLedger().name(), catalog.alertDlq().name(), groupId,
                        v.get("status.maxEntries", Integer::parseInt), v.get("status.dedupeEntries", Integer::parseInt),
                        v.get("status.catchUp", Values::duration), v.get("status.restartBackoff", Values::duration),
                        v.get("status.restartMaxBackoff", Values::duration),
                        v.get("status.maxRestarts", Integer::parseInt)),
                FilterSettings.DEFAULTS.withLimits(new FilterLimits(FilterLimits.DEFAULTS.maxConditionLength(),
                        FilterLimits.DEFAULTS.maxDepth(), v.get("filter.maxPatternLength", Integer::parseInt),
                        v.get("filter.maxPatternProgram", Integer::parseInt),
                        v.get("filter.maxSubjectLength", Integer::parseInt))),
                new DeliveryConcurrency(v.get("delivery.maxConcurrentPerDestination", Integer::parseInt),
                        v.get("delivery.maxQueuedPerDestination", Integer::parseInt),
                        v.get("delivery.maxConnectionsPerHost", Integer::parseInt),
                        v.get("delivery.blockingThreads", Integer::parseInt),
                        v.get("delivery.maxQueueWait", Values::duration),
                        v.get("delivery.stallTimeout", Values::duration)),
                v.get("ledger.linger", Values::duration),
                new DigestSettings(catalog.alertDigest().name(), groupId + ".digest",
                        v.get("digest.topChanges", Integer::parseInt), v.get("digest.maxEntryBytes", Integer::parseInt),
                        v.get("digest.maxWindows", Integer::parseInt), v.get("digest.maxListedBytes", Long::parseLong),
                        v.get("digest.zone", java.time.ZoneId::of),
                        v.get("digest.tick", Values::duration), v.get("digest.retryBackoff", Values::duration),
                        ledger.ackTimeout(), v.get("grouping.groupWait", Values::duration),
                        v.get("grouping.groupInterval", Values::duration),
                        v.get("grouping.repeatInterval", Values::duration),
                        v.get("digest.maxInFlightPerDestination", Integer::parseInt),
                        v.get("digest.sendTimeout", Values::duration),
                        v.get("digest.blockingThreads", Integer::parseInt)),
                new RetrySettings(catalog.alertRetry().name(), catalog.alertDestinations().name(), groupId,
                        v.get("retry.inlineBudget", Values::duration), v.get("retry.maxRecordBytes", Integer::parseInt),
                        v.get("retry.lanes", Integer::parseInt), v.get("retry.maxHeld", Integer::parseInt),
                        v.get("retry.maxHeldPerDestination", Integer::parseInt),
                        v.get("retry.maxConcurrentPerDestination", Integer::parseInt),
                        v.get("retry.recheckInterval", Values::duration),
                        v.get("retry.initialBackoff", Values::duration), v.get("retry.maxBackoff", Values::duration),
                        v.get("retry.suspendAfterFailures", Integer::parseInt),
                        v.get("retry.suspendAfterDuration", Values::duration),
                        v.get("retry.maxDestinations", Integer::parseInt),
                        v.get("retry.dedupeEntries", Integer::parseInt), v.get("retry.publishInterval", Values::duration),
                        v.get("retry.stateCatchUp", Values::duration), v.get("ledger.ackTimeout", Values::duration)),
                new io.changestream.alerts.diagnostics.DiagnosticsSettings(
                        v.get("diagnostics.sampleRecords", Integer::parseInt),
                        v.get("diagnostics.scanTime", Values::duration),
                        v.get("diagnostics.listRecords", Integer::parseInt),
                        io.changestream.alerts.diagnostics.DiagnosticsSettings.DEFAULTS.maxLimit(),
                        v.get("diagnostics.dlqDepthInterval", Values::duration)));
    }

    /** The OpenLineage Kafka allowlist: {@code raw} (comma-separated) or the default, never a catalog topic. */
    private static Set<String> lineageTopics(String raw, TopicCatalog catalog) {
        Set<String> topics = new TreeSet<>();
        if (raw == null || raw.isBlank()) {
            topics.add(catalog.namespace() + LineageSettings.DEFAULT_KAFKA_TOPIC_SUFFIX);
        } else {
            for (String topic : raw.split(",")) {
                if (!topic.isBlank()) {
                    topics.add(topic.trim());
                }
            }
        }
        for (String topic : topics) {
            if (catalog.byName(topic).isPresent() || TopicCatalog.defaults().byName(topic).isPresent()) {
                throw new IllegalArgumentException("destinations.lineage.kafkaTopics must not name a catalog topic, "
                        + "was '" + topic + "'");
            }
        }
        return topics;
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
        return io.changestream.settings.SecretKeys.isSecret(key);
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
        out.put("quota", admin.quotas().toString());
        out.put("runtime.topics", String.join(",", runtime.topics()));
        out.put("runtime.lanes", Integer.toString(runtime.lanes()));
        out.put("runtime.maxAttempts", Integer.toString(runtime.maxAttempts()));
        out.put("runtime.processingTimeout", runtime.processingTimeout().toString());
        out.put("runtime.closeTimeout", runtime.closeTimeout().toString());
        out.put("ledger", ledger.toString());
        out.put("pipeline", pipeline.toString());
        out.put("destinations", destinations.toString());
        out.put("status", status.toString());
        out.put("filter", filter.limits().toString());
        out.put("retry", retry.toString());
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

        /** A comma-separated list of the platform's destination type names ({@code Email,Slack}). */
        static java.util.Set<SubscriptionType> types(String raw) {
            java.util.Set<SubscriptionType> out = java.util.EnumSet.noneOf(SubscriptionType.class);
            for (String name : raw.split(",")) {
                String n = name.trim();
                if (n.isEmpty()) {
                    continue;
                }
                out.add(java.util.Arrays.stream(SubscriptionType.values())
                        .filter(t -> io.changestream.topics.serde.Json.mapper().convertValue(t, String.class)
                                .equalsIgnoreCase(n))
                        .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown destination type " + n)));
            }
            return out;
        }

        static boolean bool(String raw) {
            if (!raw.equalsIgnoreCase("true") && !raw.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException("expected true or false");
            }
            return Boolean.parseBoolean(raw);
        }
    }
}
