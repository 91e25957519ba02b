package io.changestream.alerts.destination;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.platform.PlatformDirectory;
import io.changestream.alerts.destination.chat.ChatDestination;
import io.changestream.alerts.destination.chat.ChatFormat;
import io.changestream.alerts.destination.email.EmailDestination;
import io.changestream.alerts.destination.email.EmailReceivers;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.limits.CircuitBreakingDestination;
import io.changestream.alerts.destination.limits.CircuitState;
import io.changestream.alerts.destination.limits.DeliveryConcurrency;
import io.changestream.alerts.destination.limits.DestinationConcurrency;
import io.changestream.alerts.destination.limits.DestinationRateLimiter;
import io.changestream.alerts.destination.webhook.WebhookConfig;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import io.changestream.alerts.destination.lineage.OpenLineageDestination;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;

/**
 * Every destination type the service delivers to, each behind its per-destination circuit breakers, with the
 * delivery meters. The runtime's processors call {@link #deliver} / {@link #deliverAll}; the REST layer calls
 * {@link #validate} at save time. Thread-safe.
 *
 * <p>Meters: {@code changestream_alert_deliveries_total{type,outcome,reason}} (reason: {@link FailureReason}) and
 * {@code changestream_alert_delivery_seconds{type}}, {@code changestream_alert_open_circuits{type}},
 * {@code changestream_alert_throttled_total{type}} (tags: destination type and outcome enums only).
 *
 * <p>Each destination's rate limit ({@link DestinationRateLimiter}) is applied before its circuit breaker, so a
 * held-back request is a RETRY after its slot that never counts as a failure of the destination.
 *
 * <p>{@link #deliverAsync} (the alert processor's path) never blocks its caller: after the rate limit, a request takes
 * one of its destination's {@link DeliveryConcurrency#maxConcurrentPerDestination()} slots or waits in the
 * destination's bounded queue ({@link DestinationConcurrency}); HTTP destinations send over the asynchronous client,
 * SMTP and OpenLineage run on a pool of {@link DeliveryConcurrency#blockingThreads()}. Gauges
 * {@code changestream_alert_deliveries_in_flight{type}} and {@code changestream_alert_deliveries_queued{type}}.
 */
public final class DestinationRegistry implements AutoCloseable {

    private final Map<SubscriptionType, CircuitBreakingDestination> destinations = new EnumMap<>(
            SubscriptionType.class);
    private final HttpSender sender;
    private final OpenLineageDestination lineage;
    private final ImpactResolver impact;
    private final DestinationRateLimiter limiter;
    private final MeterRegistry meters;
    private final DestinationConcurrency concurrency;
    /** Meters per destination type, looked up once (a delivery's hot path). */
    private final Map<SubscriptionType, Timer> timers = new java.util.concurrent.ConcurrentHashMap<>();
    /** Per type, the delivery counters by outcome and failure reason (a bounded set: enums only). */
    private final Map<SubscriptionType, Map<String, Counter>> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
    private final ThreadPoolExecutor blocking;
    private final DigestDelivery digests;

    /**
     * With the default {@link DeliveryConcurrency}.
     *
     * @param lineageProducer producer for OpenLineage's Kafka transport, or null (owned by the caller)
     */
    public DestinationRegistry(DestinationSettings settings, Clock clock, MeterRegistry meters,
                               Producer<String, String> lineageProducer) {
        this(settings, DeliveryConcurrency.DEFAULTS, clock, meters, lineageProducer);
    }

    /**
     * @param concurrency     concurrent requests per destination and the blocking pool
     * @param lineageProducer producer for OpenLineage's Kafka transport, or null (owned by the caller)
     */
    public DestinationRegistry(DestinationSettings settings, DeliveryConcurrency concurrency, Clock clock,
                               MeterRegistry meters, Producer<String, String> lineageProducer) {
        this.meters = Objects.requireNonNull(meters, "meters");
        this.concurrency = new DestinationConcurrency(concurrency, clock);
        AtomicInteger threads = new AtomicInteger();
        this.blocking = new ThreadPoolExecutor(concurrency.blockingThreads(), concurrency.blockingThreads(), 30,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(Math.max(1, concurrency.maxQueuedPerDestination())), r -> {
                    Thread t = new Thread(r, "cs-delivery-blocking-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        blocking.allowCoreThreadTimeOut(true);
        this.sender = new HttpSender(settings.http(), clock, concurrency.maxConnectionsPerHost());
        this.limiter = new DestinationRateLimiter(settings.rateLimits(), clock);
        // the platform's lineage is asked only with a bot token (its API refuses callers without one) and while
        // impact.states names a state (empty = off); otherwise run statuses map as before
        this.impact = settings.platform().bearerToken() == null || settings.impact().states().isEmpty() ? null
                : new ImpactResolver(settings.impact(), settings.platform(), clock);
        this.lineage = new OpenLineageDestination(settings.lineage(), sender, lineageProducer, impact);
        WebhookDestination webhook = new WebhookDestination(sender, clock, impact);
        List<Destination> all = new ArrayList<>(List.of(webhook,
                new ChatDestination(ChatFormat.SLACK, sender, settings.messages(), impact),
                new ChatDestination(ChatFormat.MS_TEAMS, sender, settings.messages(), impact),
                new ChatDestination(ChatFormat.G_CHAT, sender, settings.messages(), impact),
                lineage));
        EmailDestination email = settings.smtp() == null ? null : new EmailDestination(settings.smtp(),
                settings.messages(), new EmailReceivers(new PlatformDirectory(settings.platform(), clock)), impact);
        if (email != null) {
            all.add(email);
        }
        this.digests = new DigestDelivery(sender, settings.messages(), email, limiter, clock); // issue 13: digests
        for (Destination destination : all) {
            destinations.put(destination.type(),
                    new CircuitBreakingDestination(destination, settings.breaker(), clock));
        }
        destinations.forEach((type, destination) -> AlertMeter.OPEN_CIRCUITS
                .gauge(destination, CircuitBreakingDestination::openCircuits)
                .tag("type", type.name()).register(meters));
        destinations.put(SubscriptionType.GENERIC, destinations.get(SubscriptionType.WEBHOOK));
        for (SubscriptionType type : SubscriptionType.values()) {
            AlertMeter.DELIVERIES_IN_FLIGHT.gauge(this.concurrency, c -> c.inFlight(type))
                    .tag("type", type.name()).register(meters);
            AlertMeter.DELIVERIES_QUEUED.gauge(this.concurrency, c -> c.queued(type))
                    .tag("type", type.name()).register(meters);
            AlertMeter.DELIVERIES_SHED.functionCounter(this.concurrency, c -> c.shed(type))
                    .tag("type", type.name()).register(meters);
        }
    }

    /** Whether this service delivers to the type. */
    public boolean supports(SubscriptionType type) {
        return destinations.containsKey(type);
    }

    /** Delivers one request; an unsupported type is a PERMANENT result. */
    public DeliveryResult deliver(DeliveryRequest request) {
        return deliverAll(List.of(request)).get(0);
    }

    /** Delivers requests that share one destination (a batch), results in order. */
    public List<DeliveryResult> deliverAll(List<DeliveryRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        SubscriptionType type = requests.get(0).destination().type();
        Destination destination = destinations.get(type);
        if (destination == null) {
            DeliveryResult refused = DeliveryResult.permanent("destination type " + type + " is not supported");
            return requests.stream().map(r -> refused).toList();
        }
        DeliveryResult throttled = throttle(requests.get(0), requests.size());
        if (throttled != null) {
            return requests.stream().map(r -> throttled).toList();
        }
        Timer.Sample sample = Timer.start(meters);
        List<DeliveryResult> results = destination.deliverAll(requests);
        results.stream().filter(r -> r.retryAfter() != null).findFirst()
                .ifPresent(r -> limiter.observe(requests.get(0), r));
        sample.stop(deliveryTimer(type));
        results.forEach(result -> count(type, result));
        return results;
    }

    /**
     * Delivers one request without blocking, for the commit path ({@link Patience#SHED}): rate limit, then a slot of
     * the destination's concurrency limit (or its queue), then the circuit breaker and the destination's
     * asynchronous send. The stage completes with the result (an unsupported type, a shed or throttled request and a
     * refused blocking pool are results too); cancelling it cancels the request.
     */
    public CompletableFuture<DeliveryResult> deliverAsync(DeliveryRequest request) {
        return deliverAsync(request, Patience.SHED);
    }

    /**
     * {@link #deliverAsync(DeliveryRequest)} with what the request does when its destination cannot take it now.
     */
    public CompletableFuture<DeliveryResult> deliverAsync(DeliveryRequest request, Patience patience) {
        return deliverAsync(request, patience, () -> CompletableFuture.completedFuture(null));
    }

    /**
     * {@link #deliverAsync(DeliveryRequest, Patience)} with a step that must complete before the request goes out, run
     * only once the request holds its destination's slot (so a request waiting in the queue has not done it yet): the
     * at-most-once ATTEMPTING record. A failed step fails the stage without sending.
     */
    public CompletableFuture<DeliveryResult> deliverAsync(DeliveryRequest request, Patience patience,
                                                          Supplier<? extends CompletionStage<Void>> beforeSend) {
        SubscriptionType type = request.destination().type();
        CircuitBreakingDestination destination = destinations.get(type);
        if (destination == null) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.permanent("destination type " + type + " is not supported"));
        }
        DeliveryResult throttled = throttle(request, 1);
        if (throttled != null) {
            return CompletableFuture.completedFuture(throttled);
        }
        return concurrency.submit(CircuitBreakingDestination.key(request), type, patience,
                () -> Cancellation.thenCompose(beforeSend.get(), v -> send(destination, request)));
    }

    private CompletionStage<DeliveryResult> send(CircuitBreakingDestination destination, DeliveryRequest request) {
        SubscriptionType type = request.destination().type();
        {
            Timer.Sample sample = Timer.start(meters);
            CompletionStage<DeliveryResult> sent;
            try {
                sent = destination.deliverAsync(request, blocking);
            } catch (RejectedExecutionException e) {
                return CompletableFuture.completedFuture(DeliveryResult.shed(null, "the blocking delivery pool is full "
                                + "(delivery.blockingThreads, delivery.maxQueuedPerDestination)"));
            }
            return Cancellation.forward(sent.toCompletableFuture().whenComplete((result, error) -> {
                if (result != null) {
                    sample.stop(deliveryTimer(type));
                    if (result.retryAfter() != null) {
                        limiter.observe(request, result);
                    }
                    count(type, result);
                }
            }), sent);
        }
    }

    /** A throttled result when the destination's rate limit holds the request back, else null. */
    private DeliveryResult throttle(DeliveryRequest request, int requests) {
        Duration wait = limiter.acquire(request);
        if (wait.isZero()) {
            return null;
        }
        SubscriptionType type = request.destination().type();
        AlertMeter.THROTTLED.counter()
                .tag("type", type.name()).register(meters).increment(requests);
        return DeliveryResult.throttled(wait, "rate limit of destination " + CircuitBreakingDestination.key(request)
                + " (" + limiter.limitOf(request.destination()) + "): next slot in " + wait.toMillis() + " ms");
    }

    private Timer deliveryTimer(SubscriptionType type) {
        return timers.computeIfAbsent(type, t -> AlertMeter.DELIVERY.timer()
                .tag("type", t.name()).register(meters));
    }

    private void count(SubscriptionType type, DeliveryResult result) {
        Map<String, Counter> byOutcome = outcomes.computeIfAbsent(type, t -> new java.util.concurrent.ConcurrentHashMap<>());
        FailureReason reason = FailureReason.of(result);
        byOutcome.computeIfAbsent(result.outcome().name() + "/" + reason.label(), k -> AlertMeter.DELIVERIES.counter()
                .tag("type", type.name()).tag("outcome", result.outcome().name()).tag("reason", reason.label())
                .register(meters)).increment();
    }

    /** Sends digest and group messages (issue 13) with these destinations' senders and rate limits. */
    public DigestDelivery digests() {
        return digests;
    }

    /** Ends a receiver's Retry-After pause of the request's destination (resumed by hand, decision 1120). */
    public void resume(DeliveryRequest request) {
        limiter.resume(request);
    }

    /** The circuit state of a request's destination. */
    public CircuitState circuitState(DeliveryRequest request) {
        CircuitBreakingDestination destination = destinations.get(request.destination().type());
        return destination == null ? CircuitState.CLOSED
                : destination.state(CircuitBreakingDestination.key(request));
    }

    /**
     * Validates a destination at save time: supported type, config readable, URLs allowed by the SSRF guard,
     * e-mail receivers valid.
     *
     * @throws DestinationConfigException naming the field relative to the destination
     */
    public void validate(SubscriptionDestination destination) {
        SubscriptionType type = destination.type();
        if (!supports(type)) {
            throw new DestinationConfigException("type", type + " destinations are not supported by this service");
        }
        if (type != SubscriptionType.EMAIL) {
            requestTimeFits(destination, sender.settings().maxRequestTime());
        }
        switch (type) {
            case EMAIL -> EmailReceivers.validate(destination);
            case OPEN_LINEAGE -> lineage.transport(destination);
            default -> sender.guard().check(WebhookConfig.parse(destination.config()).endpoint(), "config.endpoint");
        }
        limiter.limitOf(destination);
        Impacts.tiers(destination.config(), java.util.Set.of());
    }

    /**
     * A destination's {@code timeout + readTimeout} must fit in {@code delivery.maxRequestTime}: no request may hold a
     * connection (and its event's processing) longer.
     *
     * @throws DestinationConfigException naming {@code readTimeout} (or {@code timeout} when it alone is too long)
     */
    static void requestTimeFits(SubscriptionDestination destination, Duration maxRequestTime) {
        long total = (long) destination.timeout() + destination.readTimeout();
        if (total > maxRequestTime.toSeconds()) {
            String field = destination.timeout() >= maxRequestTime.toSeconds() ? "timeout" : "readTimeout";
            throw new DestinationConfigException(field, "timeout + readTimeout is " + total + " s, more than "
                    + maxRequestTime.toSeconds() + " s (delivery.maxRequestTime): no request may take longer");
        }
    }

    /**
     * The failure-impact resolver the destinations share (the filter's tag lookup uses it too), or null when the
     * platform has no {@code destinations.platform.bearerToken} or {@code impact.states} is empty.
     */
    public ImpactResolver impact() {
        return impact;
    }

    @Override
    public void close() {
        destinations.values().forEach(Destination::close);
        blocking.shutdownNow();
        concurrency.close();
        sender.close();
    }
}
