package io.changestream.alerts.digest;

import io.changestream.alerts.destination.limits.CircuitBreakingDestination;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DigestDelivery;
import io.changestream.alerts.destination.DigestMessage;
import io.changestream.topics.model.SubscriptionDestination;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sending side of the digest flusher (issue 21 item 6): it starts digest and group sends without blocking the
 * flusher thread, at most {@code digest.maxInFlightPerDestination} at once per destination (the bulkhead: a slow or
 * hanging receiver fills only its own), each bounded by {@code digest.sendTimeout} (then cancelled, which cancels the
 * request, and reported as a failed attempt). Results wait in a queue the flusher thread drains every loop, so all
 * window state stays on that thread. E-mail digests go out on {@code digest.blockingThreads} threads of its own.
 * Thread-safe; {@link #close} cancels what is still running.
 */
final class DigestSender implements AutoCloseable {

    /** A finished send: for {@code window}'s destination group {@code groupKey}. */
    record Done(DigestWindow window, String groupKey, DeliveryResult result) {
    }

    private final DigestDelivery delivery;
    private final DigestSettings settings;
    private final ExecutorService blocking;
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<CompletableFuture<DeliveryResult>, Boolean> running = new ConcurrentHashMap<>();
    private final Queue<Done> done = new ConcurrentLinkedQueue<>();

    DigestSender(DigestDelivery delivery, DigestSettings settings) {
        this.delivery = delivery;
        this.settings = settings;
        AtomicInteger n = new AtomicInteger();
        this.blocking = Executors.newFixedThreadPool(settings.blockingThreads(), r -> {
            Thread t = new Thread(r, "cs-digest-mail-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    /** The bulkhead key of a destination: the circuit breaker's (destination id, else a hash of its config). */
    static String destinationKey(DigestMessage message, SubscriptionDestination destination) {
        return CircuitBreakingDestination.key(message.subscription(), destination);
    }

    /**
     * Starts sending {@code message} to {@code destination} for {@code window}'s group {@code groupKey}; false (and
     * nothing started) when the destination has {@code digest.maxInFlightPerDestination} sends running.
     */
    boolean trySend(DigestWindow window, String groupKey, DigestMessage message, SubscriptionDestination destination) {
        String key = destinationKey(message, destination);
        AtomicInteger slots = inFlight.computeIfAbsent(key, k -> new AtomicInteger());
        if (slots.incrementAndGet() > settings.maxInFlightPerDestination()) {
            slots.decrementAndGet();
            return false;
        }
        CompletableFuture<DeliveryResult> send;
        try {
            send = delivery.deliverAsync(message, destination, blocking);
        } catch (RuntimeException e) {
            send = CompletableFuture.completedFuture(DeliveryResult.retry(null, "digest send not started: " + e));
        }
        CompletableFuture<DeliveryResult> bounded = send.orTimeout(settings.sendTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        running.put(bounded, Boolean.TRUE);
        CompletableFuture<DeliveryResult> started = send;
        bounded.whenComplete((result, error) -> {
            running.remove(bounded);
            if (error != null) {
                started.cancel(true); // timed out or closed: the request is cancelled
            }
            slots.decrementAndGet();
            done.add(new Done(window, groupKey, error == null ? result : failure(error)));
        });
        return true;
    }

    private DeliveryResult failure(Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof TimeoutException) {
            return DeliveryResult.retry(null, "no answer within " + settings.sendTimeout().toMillis()
                    + " ms (digest.sendTimeout): cancelled");
        }
        return DeliveryResult.retry(null, "digest send failed: " + cause);
    }

    /** Sends running in all. */
    int running() {
        return running.size();
    }

    /** The sends finished since the last call (flusher thread). */
    List<Done> finished() {
        List<Done> out = new ArrayList<>();
        for (Done d; (d = done.poll()) != null; ) {
            out.add(d);
        }
        return out;
    }

    /** Cancels what still runs (each is reported as failed) and stops the e-mail threads. */
    @Override
    public void close() {
        List.copyOf(running.keySet()).forEach(f -> f.cancel(true));
        blocking.shutdownNow();
    }
}
