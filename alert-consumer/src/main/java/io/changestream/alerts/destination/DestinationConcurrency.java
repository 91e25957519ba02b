package io.changestream.alerts.destination;

import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * At most {@link DeliveryConcurrency#maxConcurrentPerDestination()} requests in flight per destination (keyed like
 * the circuit breakers); a request past the limit waits in that destination's FIFO queue (at most
 * {@link DeliveryConcurrency#maxQueuedPerDestination()}) and is started by the completion of an earlier one, so no
 * caller ever waits. A request finding the queue full gets a throttled RETRY (not an attempt). A destination's entry
 * exists only while it has requests in flight, so the map is bounded by the requests in flight. Thread-safe; the
 * in-flight and queued counts per destination type feed the registry's gauges.
 */
final class DestinationConcurrency {

    /** When the queue is full, the request comes back after this. */
    static final Duration QUEUE_FULL_WAIT = Duration.ofMillis(200);

    private final DeliveryConcurrency settings;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> queued = new ConcurrentHashMap<>();

    DestinationConcurrency(DeliveryConcurrency settings) {
        this.settings = settings;
    }

    /** One destination's running count and waiting requests; guarded by the map's compute. */
    private static final class Slot {
        int running;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    }

    private record Waiting(SubscriptionType type, Supplier<? extends CompletionStage<DeliveryResult>> send,
                           CompletableFuture<DeliveryResult> result) {
    }

    /**
     * Starts {@code send} now when the destination has a free slot, else queues it; cancelling the returned future
     * cancels the request (a queued one is skipped when its turn comes).
     */
    CompletableFuture<DeliveryResult> submit(String key, SubscriptionType type,
                                             Supplier<? extends CompletionStage<DeliveryResult>> send) {
        Waiting request = new Waiting(type, send, new CompletableFuture<>());
        int[] decision = {0}; // 1 start, 2 queued, 3 full
        slots.compute(key, (k, slot) -> {
            Slot s = slot == null ? new Slot() : slot;
            if (s.running < settings.maxConcurrentPerDestination()) {
                s.running++;
                decision[0] = 1;
            } else if (s.waiting.size() < settings.maxQueuedPerDestination()) {
                s.waiting.add(request);
                decision[0] = 2;
            } else {
                decision[0] = 3;
            }
            return s;
        });
        switch (decision[0]) {
            case 1 -> start(key, request);
            case 2 -> count(queued, type).incrementAndGet();
            default -> {
                return CompletableFuture.completedFuture(DeliveryResult.throttled(QUEUE_FULL_WAIT,
                        settings.maxQueuedPerDestination() + " requests already wait for destination " + key
                                + " (delivery.maxQueuedPerDestination)"));
            }
        }
        return request.result();
    }

    private void start(String key, Waiting request) {
        count(inFlight, request.type()).incrementAndGet();
        CompletionStage<DeliveryResult> stage;
        try {
            stage = request.send().get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<DeliveryResult> running = stage.toCompletableFuture();
        request.result().whenComplete((r, e) -> {
            if (request.result().isCancelled()) {
                running.cancel(true);
            }
        });
        running.whenComplete((result, error) -> {
            count(inFlight, request.type()).decrementAndGet();
            finished(key);
            if (error != null) {
                request.result().completeExceptionally(error);
            } else {
                request.result().complete(result);
            }
        });
    }

    /** Hands the finished request's slot to the next waiting one, or frees it. */
    private void finished(String key) {
        while (true) {
            Waiting[] next = {null};
            slots.computeIfPresent(key, (k, slot) -> {
                next[0] = slot.waiting.poll();
                if (next[0] == null) {
                    slot.running--;
                    return slot.running == 0 ? null : slot;
                }
                return slot;
            });
            if (next[0] == null) {
                return;
            }
            count(queued, next[0].type()).decrementAndGet();
            if (!next[0].result().isDone()) {
                start(key, next[0]);
                return;
            }
        }
    }

    /** Requests in flight now, of a destination type. */
    int inFlight(SubscriptionType type) {
        return count(inFlight, type).get();
    }

    /** Requests waiting for their destination's slot, of a destination type. */
    int queued(SubscriptionType type) {
        return count(queued, type).get();
    }

    private static AtomicInteger count(Map<SubscriptionType, AtomicInteger> counts, SubscriptionType type) {
        return counts.computeIfAbsent(type, t -> new AtomicInteger());
    }
}
