package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Destination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Wraps a destination with one {@link CircuitBreaker} per destination id, so that one dead endpoint is refused at
 * once (RETRY after the remaining open time, no network call) instead of holding processor threads for its
 * timeouts, while the other destinations of the same type are unaffected. A delivery that throws counts as a
 * transient failure of its breaker (and is rethrown). Thread-safe.
 */
public final class CircuitBreakingDestination implements Destination {

    private final Destination delegate;
    private final CircuitBreakerSettings settings;
    private final Clock clock;
    private final Map<String, CircuitBreaker> breakers;

    public CircuitBreakingDestination(Destination delegate, CircuitBreakerSettings settings, Clock clock) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.breakers = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, CircuitBreaker> eldest) {
                return size() > settings.maxBreakers();
            }
        });
    }

    @Override
    public SubscriptionType type() {
        return delegate.type();
    }

    @Override
    public DeliveryResult deliver(DeliveryRequest request) {
        CircuitBreaker breaker = breaker(request);
        if (!breaker.tryAcquire()) {
            Duration wait = breaker.remainingOpen();
            return DeliveryResult.retry(wait.isZero() ? null : wait,
                    "circuit open for destination " + key(request));
        }
        DeliveryResult result;
        try {
            result = delegate.deliver(request);
        } catch (RuntimeException | Error e) {
            breaker.recordThrown(e);
            throw e;
        }
        breaker.record(result);
        return result;
    }

    /**
     * {@link #deliver} without blocking: the breaker records the result when the stage completes. An open circuit
     * sheds the request (not sent, the pair goes to the retry path: {@link DeliveryResult#shed}); a request
     * cancelled while it ran (processing timeout, release, shutdown) counts as a failure of its destination — a
     * receiver that never answers is what gets requests cancelled.
     */
    @Override
    public CompletionStage<DeliveryResult> deliverAsync(DeliveryRequest request, Executor blocking) {
        CircuitBreaker breaker = breaker(request);
        if (!breaker.tryAcquire()) {
            Duration wait = breaker.remainingOpen();
            return CompletableFuture.completedFuture(DeliveryResult.shed(wait,
                    "circuit open for destination " + key(request)));
        }
        CompletionStage<DeliveryResult> sent;
        try {
            sent = delegate.deliverAsync(request, blocking);
        } catch (RuntimeException | Error e) {
            breaker.recordThrown(e);
            throw e;
        }
        CompletableFuture<DeliveryResult> out = new CompletableFuture<>();
        sent.whenComplete((result, error) -> {
            if (error instanceof java.util.concurrent.CancellationException) {
                breaker.record(DeliveryResult.unanswered("cancelled while running"));
                out.cancel(false);
            } else if (error != null) {
                breaker.recordThrown(error);
                out.completeExceptionally(error);
            } else {
                breaker.record(result);
                out.complete(result);
            }
        });
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                sent.toCompletableFuture().cancel(true); // recorded as a failure by the handler above
            }
        });
        return out;
    }

    /**
     * Delivers a batch for one destination through its breaker: refused as a whole while open; a batch with any
     * RETRY result counts as one failure.
     */
    @Override
    public List<DeliveryResult> deliverAll(List<DeliveryRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        CircuitBreaker breaker = breaker(requests.get(0));
        if (!breaker.tryAcquire()) {
            Duration wait = breaker.remainingOpen();
            DeliveryResult refused = DeliveryResult.retry(wait.isZero() ? null : wait,
                    "circuit open for destination " + key(requests.get(0)));
            return requests.stream().map(r -> refused).toList();
        }
        List<DeliveryResult> results;
        try {
            results = delegate.deliverAll(requests);
        } catch (RuntimeException | Error e) {
            breaker.recordThrown(e);
            throw e;
        }
        breaker.record(results.stream().filter(r -> r.outcome() == DeliveryResult.Kind.RETRY).findFirst()
                .orElse(DeliveryResult.delivered()));
        return results;
    }

    /** The state of a destination's breaker (CLOSED when it has none yet). */
    public CircuitState state(String destinationKey) {
        CircuitBreaker breaker = breakers.get(destinationKey);
        return breaker == null ? CircuitState.CLOSED : breaker.state();
    }

    /** How many of its destinations have an open circuit now. */
    public int openCircuits() {
        synchronized (breakers) {
            return (int) breakers.values().stream().filter(b -> b.state() == CircuitState.OPEN).count();
        }
    }

    /**
     * The key of a request's destination — of its breaker, bulkhead, rate limit and retry-path state: the
     * subscription id and the destination id (a caller-chosen destination id may repeat in another subscription, so
     * the id alone would let one tenant's destination trip another's breaker), or when it has no id the subscription
     * id, type and a hash of the config (never the config itself: endpoints such as Slack webhook URLs are secrets).
     */
    public static String key(DeliveryRequest request) {
        return key(request.subscription(), request.destination());
    }

    /** The key of a subscription's destination, as {@link #key(DeliveryRequest)}. */
    public static String key(io.changestream.topics.model.EventSubscription subscription,
                             io.changestream.topics.model.SubscriptionDestination destination) {
        String id = destination.id();
        return id != null ? subscription.id() + "/" + id : subscription.id() + "/" + destination.type() + "/"
                + Integer.toHexString(Objects.hashCode(destination.config()));
    }

    private CircuitBreaker breaker(DeliveryRequest request) {
        return breakers.computeIfAbsent(key(request), k -> new CircuitBreaker(settings, clock));
    }

    @Override
    public void close() {
        delegate.close();
    }
}
