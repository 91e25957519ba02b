package io.changestream.alerts.service;

import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.digest.DigestCollector;
import io.changestream.alerts.digest.DigestFlusher;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.alerts.pipeline.AlertProcessor;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.pipeline.DeliverySummary;
import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.CloseMode;
import io.changestream.alerts.replay.ReplayParts;
import io.changestream.alerts.replay.ReplayRoutes;
import io.changestream.alerts.replay.Replays;
import io.changestream.alerts.retry.RetryRoutes;
import io.changestream.alerts.retry.RetryService;
import io.changestream.alerts.diagnostics.DestinationTester;
import io.changestream.alerts.diagnostics.DiagnosticsRoutes;
import io.changestream.alerts.diagnostics.DlqDepthGauge;
import io.changestream.alerts.diagnostics.SubscriptionDiagnostics;
import io.changestream.alerts.startpoint.StartingPointScope;
import io.changestream.alerts.subscription.DeliveryStatuses;
import io.changestream.alerts.startpoint.StartingPoints;
import io.changestream.runtime.ConsumerRuntime;
import io.changestream.runtime.RuntimeState;
import io.changestream.alerts.status.DeliveryStatusView;
import io.changestream.alerts.subscription.SubscriptionFactory;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.alerts.subscription.SubscriptionService;
import io.changestream.alerts.subscription.SubscriptionStore;
import io.changestream.alerts.subscription.SubscriptionViewGate;
import io.changestream.runtime.Outcome;
import io.changestream.topics.TopicCatalog;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running alert service: the subscription store (read-only view of {@code subscriptions}), the destinations, the
 * delivery ledger, the group-wide {@link DeliveryStatusView} for {@code /status}, the {@link AlertProcessor} on a
 * {@link ConsumerRuntime} over {@code changes} and {@code pipeline-status} — behind a {@link SubscriptionViewGate} that
 * holds events back while the subscription view is stale — and the HTTP server. {@link #start} builds and starts
 * everything (what it started is closed again when a later part fails); {@link #close} drains the runtime (finish,
 * ledger, commit, leave the group) and then stops the rest in reverse order, idempotent and bounded, all parts
 * together, by {@code runtime.closeTimeout}. Any thread.
 */
public final class AlertService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AlertService.class);
    /** What a part closed after the stop's deadline still gets: a producer flushes what it holds, a thread ends. */
    private static final Duration STOP_FLOOR = Duration.ofMillis(500);
    /** Most of {@code runtime.closeTimeout} kept from the drain for the parts closed after it. */
    private static final Duration AFTER_DRAIN = Duration.ofSeconds(5);

    private final AlertServiceConfig config;
    private final Deque<AutoCloseable> parts = new ArrayDeque<>();
    private PrometheusMeterRegistry meters;
    private SubscriptionStore store;
    private DeliveryLedger ledger;
    private AlertProcessor processor;
    private ConsumerRuntime<String, String> runtime;
    private DeliveryStatusView status;
    private DeliverySummary summary;
    private AlertHttpServer http;
    private DigestFlusher flusher;
    private RetryService retry;
    private RetryRoutes retryRoutes;
    private volatile boolean closed;
    /** System.nanoTime() by which {@link #close} must be done: its start plus {@code runtime.closeTimeout}. */
    private volatile long stopDeadlineNanos;

    private AlertService(AlertServiceConfig config) {
        this.config = config;
    }

    /** Builds and starts the service. */
    public static AlertService start(AlertServiceConfig config) {
        return start(config, Clock.systemUTC());
    }

    /** Builds and starts the service on a clock (tests drive digest schedules and grouping waits with it). */
    public static AlertService start(AlertServiceConfig config, Clock clock) {
        AlertService service = new AlertService(config);
        try {
            service.startParts(clock);
            return service;
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
    }

    private void startParts(Clock clock) {
        TopicCatalog catalog = config.catalog();
        meters = ServiceMetrics.create(); // with the Kafka meters' descriptions and the runtime's filters
        parts.push(meters::close);
        Map<String, Object> producerProps = new HashMap<>(config.kafka());
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, config.groupId() + "-ledger");
        // the ledger's own producer: its batches carry the outcomes of many pairs each (group commit, decision 2201)
        Map<String, Object> ledgerProps = new HashMap<>(producerProps);
        ledgerProps.put(ProducerConfig.LINGER_MS_CONFIG, (int) config.ledgerLinger().toMillis());
        // issue 21: each producer reports a send failed before its caller's ack wait ends, so a write reported
        // failed (and retried) is not written later by the producer's own retries
        KafkaProducer<String, byte[]> ledgerProducer = new KafkaProducer<>(ProducerAcks.boundedBy(ledgerProps,
                config.ledger().ackTimeout(), "ledger.ackTimeout"), new StringSerializer(), new ByteArraySerializer());
        parts.push(() -> ledgerProducer.close(stopTimeLeft()));
        // the shared producer of everything else: dead letters, retry records, digests, destination states, lineage
        producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, config.groupId() + "-records");
        KafkaProducer<String, String> producer = new KafkaProducer<>(ProducerAcks.boundedBy(producerProps,
                config.ledger().ackTimeout(), "ledger.ackTimeout"), new StringSerializer(), new StringSerializer());
        parts.push(() -> producer.close(stopTimeLeft()));
        DestinationRegistry destinations = new DestinationRegistry(config.destinations(), config.delivery(), clock,
                meters, producer);
        parts.push(destinations);
        // matchAnyTag finds a run's pipeline tags through the impact resolver (issue 28)
        FilterSettings filter = destinations.impact() == null ? config.filter()
                : config.filter().withTags(destinations.impact());
        store = SubscriptionStore.start(config.subscriptions(), filter, clock);
        parts.push(store);
        store.bindTo(meters);
        status = DeliveryStatusView.start(config.status(), config.kafka());
        parts.push(status);
        summary = new DeliverySummary(clock);
        StartingPointScope startingPointScope = new StartingPointScope(); // issue 26: events before a start
        store.addListener(change -> {
            if (change.current() == null) {
                summary.forget(change.id());
                startingPointScope.forget(change.id());
            }
        });
        // issue 26: a new subscription starts at the source topics' log end (or its startingOffset/startingTimestamp)
        StartingPoints startingPoints = new StartingPoints(config.kafka(), config.runtime().topics(),
                config.subscriptions().startupTimeout(), clock);
        parts.push(startingPoints);
        SubscriptionFactory factory = new SubscriptionFactory(destinations, filter, config.admin().quotas(), clock);
        SubscriptionService subscriptions = new SubscriptionService(factory, store, config.admin().quotas(),
                startingPoints);
        ledger = new DeliveryLedger(config.ledger(), ledgerProducer, config.kafka(), meters, clock);
        parts.push(ledger);
        status.countOwnWrites(ledger.writer()); // the view counts this instance's batches from their acks
        ledger.onAcked(status::applyOwn);
        DeadLetterWriter deadLetters = new DeadLetterWriter(catalog.alertDlq().name(), producer,
                config.ledger().ackTimeout(), meters);
        DigestCollector digests = new DigestCollector(config.digest(), producer, meters, clock); // issue 13
        processor = new AlertProcessor(config.pipeline(), startingPointScope.subscriptions(store::list), destinations,
                ledger, deadLetters,
                summary, meters, clock, digests);
        flusher = new DigestFlusher(config.digest(), config.kafka(), store::list, digests,
                destinations.digests(), ledger, deadLetters, producer, meters, clock);
        parts.push(() -> flusher.close(stopTimeLeft()));
        flusher.start();
        // the retry path (decision 1120): long waits and suspended destinations leave the commit path
        retry = RetryService.start(config.retry(), config.runtime(), producer, destinations, ledger, deadLetters,
                store::list, config.pipeline(), summary, meters, clock);
        parts.push(() -> retry.close(stopTimeLeft()));
        processor.useLongRetries(retry.path());
        retryRoutes = new RetryRoutes(subscriptions, retry, config.admin().user());
        // issue 26: the platform's status endpoints (diagnostics from Kafka, events record, sent/failed lists, test)
        SubscriptionDiagnostics diagnostics = new SubscriptionDiagnostics(config.diagnostics(), config.kafka(),
                config.runtime().topics(), catalog.changes().name(), catalog.alertLedger().name(),
                catalog.alertDlq().name(), config.groupId(), config.subscriptions().startupTimeout());
        parts.push(diagnostics);
        // issue 26: the DLQ depth, group-wide, read periodically with one admin round trip
        parts.push(DlqDepthGauge.start(diagnostics, config.diagnostics().dlqDepthInterval(), meters));
        // issue 26: replays of a time range into a named new group, beside the live group
        Replays replays = new Replays(config.replay(), new ReplayParts(config.kafka(), config.runtime(),
                config.ledger(), config.pipeline(), destinations, store::list, deadLetters, ledgerProducer,
                config.subscriptions().startupTimeout(), clock),
                Set.of(config.groupId(), config.retry().retryGroupId(), config.digest().groupId()));
        parts.push(replays);
        DeliveryStatuses statuses = retry.statuses(status);
        http = new AlertHttpServer(config, meters, this, new SubscriptionRoutes(subscriptions, config.admin(), statuses),
                new DiagnosticsRoutes(store, statuses, diagnostics, new DestinationTester(factory, destinations, clock),
                        config.admin().user()), new ReplayRoutes(replays, clock));
        parts.push(http);
        http.start();
        SubscriptionViewGate gate = new SubscriptionViewGate(store, config.subscriptions().health().maxStaleness(),
                clock, meters);
        AsyncProcessor<String, String> gated = event -> {
            Optional<SubscriptionViewGate.Hold> hold = gate.hold();
            return hold.isPresent()
                    ? CompletableFuture.completedFuture(Outcome.deferUntil(hold.get().until(), hold.get().reason()))
                    : startingPointScope.during(event, () -> processor.process(event));
        };
        runtime = ConsumerRuntime.asyncBuilder(config.runtime(), StringDeserializer::new, StringDeserializer::new,
                        gated)
                .failureHandler((event, failure) -> startingPointScope.during(event, () -> {
                    processor.onFailure(event, failure);
                    return null;
                }))
                .partitionListener(processor) // the ledger's windows follow the partitions, after their deliveries
                .meterRegistry(meters)
                .clock(clock)
                .build();
        parts.push(() -> runtime.close(CloseMode.DRAIN, drainTime()));
        // after the runtime's builder installed its Kafka meter naming on the registry
        for (KafkaProducer<String, ?> bound : java.util.List.<KafkaProducer<String, ?>>of(ledgerProducer, producer)) {
            KafkaClientMetrics metrics = new KafkaClientMetrics(bound);
            metrics.bindTo(meters);
            parts.push(metrics);
        }
        runtime.start();
        LOG.info("alert service of group {} started: HTTP port {}, topics {}", config.groupId(), http.port(),
                config.runtime().topics());
    }

    /**
     * The drain's part of {@code runtime.closeTimeout}: all but what the parts closed after it need (a quarter of it,
     * at most {@link #AFTER_DRAIN}).
     */
    private Duration drainTime() {
        Duration timeout = config.runtime().closeTimeout();
        Duration reserve = timeout.dividedBy(4);
        return timeout.minus(reserve.compareTo(AFTER_DRAIN) > 0 ? AFTER_DRAIN : reserve);
    }

    /** What is left of the stop's {@code runtime.closeTimeout}, at least {@link #STOP_FLOOR}. */
    private Duration stopTimeLeft() {
        Duration left = Duration.ofNanos(stopDeadlineNanos - System.nanoTime());
        return left.compareTo(STOP_FLOOR) < 0 ? STOP_FLOOR : left;
    }

    /** The HTTP port (the bound one when configured as 0). */
    public int httpPort() {
        return http.port();
    }

    /** Ready: the runtime is running and the subscription view is current ({@code subscriptions.staleAfter}). */
    public boolean ready() {
        return !closed && runtime != null && runtime.state() == RuntimeState.RUNNING && store.healthy();
    }

    /**
     * Live: false once a part that must run could not be restarted (the subscriptions reader, the {@code /status}
     * view's reader, a consumer thread of the runtime) or the runtime failed.
     */
    public boolean live() {
        return (store == null || store.alive()) && (runtime == null || runtime.live())
                && (flusher == null || flusher.alive()) && (status == null || status.alive())
                && (retry == null || retry.live());
    }

    /** Why not live, for {@code /health/live}. */
    String liveness() {
        if (runtime != null && !runtime.live()) {
            return "consumer runtime not live (" + runtime.state() + ")";
        }
        if (flusher != null && !flusher.alive()) {
            return "digest flusher stopped";
        }
        if (status != null && !status.alive()) {
            return status.health();
        }
        if (retry != null && !retry.live()) {
            return "retry path consumer or its destination-state reader stopped";
        }
        return store == null ? "starting" : String.valueOf(store.health());
    }

    /** Why not ready, for {@code /health/ready}. */
    String readiness() {
        return runtime == null ? "starting" : "runtime " + runtime.state() + ", " + store.health();
    }

    ConsumerRuntime<String, String> runtime() {
        return runtime;
    }

    DeliveryLedger ledger() {
        return ledger;
    }

    AlertProcessor processor() {
        return processor;
    }

    RetryService retry() {
        return retry;
    }

    RetryRoutes retryRoutes() {
        return retryRoutes;
    }

    DeliverySummary summary() {
        return summary;
    }

    SubscriptionStore store() {
        return store;
    }

    /** The registry (for tests and the bench). */
    public PrometheusMeterRegistry meters() {
        return meters;
    }

    /**
     * Drains the runtime, then stops every part in reverse start order, all within one {@code runtime.closeTimeout}
     * from now: the drain gets {@link #drainTime} of it (deliveries still running then are cancelled, their pairs
     * re-read by the next owner), each part after it what is left, at least {@link #STOP_FLOOR}. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopDeadlineNanos = System.nanoTime() + config.runtime().closeTimeout().toNanos();
        if (processor != null) {
            processor.stopWithin(drainTime()); // the final release waits no longer than the drain
        }
        while (!parts.isEmpty()) {
            AutoCloseable part = parts.pop();
            try {
                part.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", part, e);
            }
        }
        LOG.info("alert service of group {} stopped", config.groupId());
    }
}
