package io.changestream.alerts.destination;

import io.changestream.alerts.destination.lineage.OpenLineageDestination;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.producer.Producer;

/**
 * Every destination type the service delivers to, each behind its per-destination circuit breakers, with the
 * delivery meters. The runtime's processors call {@link #deliver} / {@link #deliverAll}; the REST layer calls
 * {@link #validate} at save time. Thread-safe.
 *
 * <p>Meters: {@code changestream_alert_deliveries_total{type,outcome}} and
 * {@code changestream_alert_delivery_seconds{type}}, {@code changestream_alert_open_circuits{type}},
 * {@code changestream_alert_throttled_total{type}} (tags: destination type and outcome enums only).
 *
 * <p>Each destination's rate limit ({@link DestinationRateLimiter}) is applied before its circuit breaker, so a
 * held-back request is a RETRY after its slot that never counts as a failure of the destination.
 */
public final class DestinationRegistry implements AutoCloseable {

    private final Map<SubscriptionType, CircuitBreakingDestination> destinations = new EnumMap<>(
            SubscriptionType.class);
    private final HttpSender sender;
    private final OpenLineageDestination lineage;
    private final DestinationRateLimiter limiter;
    private final MeterRegistry meters;

    /**
     * @param lineageProducer producer for OpenLineage's Kafka transport, or null (owned by the caller)
     */
    public DestinationRegistry(DestinationSettings settings, Clock clock, MeterRegistry meters,
                               Producer<String, String> lineageProducer) {
        this.meters = Objects.requireNonNull(meters, "meters");
        this.sender = new HttpSender(settings.http(), clock);
        this.limiter = new DestinationRateLimiter(settings.rateLimits(), clock);
        this.lineage = new OpenLineageDestination(settings.lineage(), sender, lineageProducer);
        WebhookDestination webhook = new WebhookDestination(sender, clock);
        List<Destination> all = new ArrayList<>(List.of(webhook,
                new ChatDestination(ChatFormat.SLACK, sender, settings.messages()),
                new ChatDestination(ChatFormat.MS_TEAMS, sender, settings.messages()),
                new ChatDestination(ChatFormat.G_CHAT, sender, settings.messages()),
                lineage));
        if (settings.smtp() != null) {
            all.add(new EmailDestination(settings.smtp(), settings.messages(),
                    new EmailReceivers(new PlatformDirectory(settings.platform(), clock))));
        }
        for (Destination destination : all) {
            destinations.put(destination.type(),
                    new CircuitBreakingDestination(destination, settings.breaker(), clock));
        }
        destinations.forEach((type, destination) -> Gauge.builder("changestream.alert.open.circuits",
                        destination, CircuitBreakingDestination::openCircuits)
                .description("Destinations whose circuit breaker is open, by destination type")
                .tag("type", type.name()).register(meters));
        destinations.put(SubscriptionType.GENERIC, destinations.get(SubscriptionType.WEBHOOK));
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
        Duration wait = limiter.acquire(requests.get(0));
        if (!wait.isZero()) {
            Counter.builder("changestream.alert.throttled")
                    .description("Requests held back by their destination's rate limit or a receiver's Retry-After")
                    .tag("type", type.name()).register(meters).increment(requests.size());
            DeliveryResult throttled = DeliveryResult.throttled(wait, "rate limit of destination "
                    + CircuitBreakingDestination.key(requests.get(0)) + " (" + limiter.limitOf(
                    requests.get(0).destination()) + "): next slot in " + wait.toMillis() + " ms");
            return requests.stream().map(r -> throttled).toList();
        }
        Timer.Sample sample = Timer.start(meters);
        List<DeliveryResult> results = destination.deliverAll(requests);
        results.stream().filter(r -> r.retryAfter() != null).findFirst()
                .ifPresent(r -> limiter.observe(requests.get(0), r));
        sample.stop(Timer.builder("changestream.alert.delivery")
                .description("Time to deliver one request or batch to a destination")
                .tag("type", type.name()).register(meters));
        for (DeliveryResult result : results) {
            Counter.builder("changestream.alert.deliveries")
                    .description("Delivery attempts by destination type and outcome")
                    .tag("type", type.name()).tag("outcome", result.outcome().name())
                    .register(meters).increment();
        }
        return results;
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
        switch (type) {
            case EMAIL -> EmailReceivers.validate(destination);
            case OPEN_LINEAGE -> lineage.transport(destination);
            default -> sender.guard().check(WebhookConfig.parse(destination.config()).endpoint(), "config.endpoint");
        }
        limiter.limitOf(destination);
    }

    @Override
    public void close() {
        destinations.values().forEach(Destination::close);
        sender.close();
    }
}
