package io.changestream.alerts.destination;

import io.changestream.topics.model.SubscriptionType;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The bulkhead of each destination (decision 2101): at most {@link DeliveryConcurrency#maxConcurrentPerDestination()}
 * requests in flight per destination (keyed like the circuit breakers); a request past the limit waits in that
 * destination's FIFO queue (at most {@link DeliveryConcurrency#maxQueuedPerDestination()}) and is started by the
 * completion of an earlier one, so no caller ever waits.
 *
 * <p>A destination that cannot keep up sheds instead of queueing: a request that finds the queue full, or whose
 * turn comes (or whose queue's oldest request has waited) longer than {@link DeliveryConcurrency#maxQueueWait()},
 * completes at once with a {@link DeliveryResult#shed shed} result — never sent, not an attempt — and the alert
 * processor hands its pair to the retry path. So a hanging or slow receiver holds at most its in-flight slots of the
 * runtime, each for at most its request deadline, and the queue in front of it never fills the runtime's calls.
 *
 * <p>A destination's entry exists only while it has requests in flight, so the map is bounded by the requests in
 * flight. Cancelling a request's future cancels the send (the HTTP exchange is aborted); a queued one is skipped.
 * Thread-safe; the in-flight and queued counts per destination type feed the registry's gauges.
 */
final class DestinationConcurrency {

    private final DeliveryConcurrency settings;
    private final Clock clock;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> queued = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> shed = new ConcurrentHashMap<>();

    DestinationConcurrency(DeliveryConcurrency settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    /** One destination's running count and waiting requests; guarded by the map's compute. */
    private static final class Slot {
        int running;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    }

    private record Waiting(SubscriptionType type, Supplier<? extends CompletionStage<DeliveryResult>> send,
                           CompletableFuture<DeliveryResult> result, long since) {
    }

    /** What {@link #submit} decided under the destination's lock. */
    private enum Admission {
        /** A slot was free: send now. */
        START,
        /** Every slot busy: wait in the queue. */
        QUEUED,
        /** The destination cannot keep up: refuse this one (and the queue, when its oldest waited too long). */
        SHED
    }

    /**
     * Starts {@code send} now when the destination has a free slot, else queues it, or sheds it when the destination
     * is saturated; cancelling the returned future cancels the request (a queued one is skipped when its turn comes).
     */
    CompletableFuture<DeliveryResult> submit(String key, SubscriptionType type,
                                             Supplier<? extends CompletionStage<DeliveryResult>> send) {
        long now = clock.millis();
        Waiting request = new Waiting(type, send, new CompletableFuture<>(), now);
        Admission[] admission = {Admission.START};
        List<Waiting> overdue = new ArrayList<>(0);
        slots.compute(key, (k, slot) -> {
            Slot s = slot == null ? new Slot() : slot;
            if (s.running < settings.maxConcurrentPerDestination()) {
                s.running++;
                admission[0] = Admission.START;
            } else if (!s.waiting.isEmpty() && overdue(s.waiting.peek(), now)) {
                overdue.addAll(s.waiting); // the destination stalled: nothing queued behind it moves either
                s.waiting.clear();
                admission[0] = Admission.SHED;
            } else if (s.waiting.size() < settings.maxQueuedPerDestination()) {
                s.waiting.add(request);
                admission[0] = Admission.QUEUED;
            } else {
                admission[0] = Admission.SHED;
            }
            return s;
        });
        for (Waiting w : overdue) {
            count(queued, w.type()).decrementAndGet();
            shedOne(key, w, "waited " + (now - w.since()) + " ms for a slot of destination " + key
                    + " (delivery.maxQueueWait " + settings.maxQueueWait().toMillis() + " ms)");
        }
        switch (admission[0]) {
            case START -> start(key, request);
            case QUEUED -> count(queued, type).incrementAndGet();
            default -> shedOne(key, request, overdue.isEmpty()
                    ? settings.maxQueuedPerDestination() + " requests already wait for destination " + key
                    + " (delivery.maxQueuedPerDestination)"
                    : "destination " + key + " is not keeping up (delivery.maxQueueWait "
                    + settings.maxQueueWait().toMillis() + " ms)");
        }
        return request.result();
    }

    private boolean overdue(Waiting waiting, long now) {
        return now - waiting.since() > settings.maxQueueWait().toMillis();
    }

    private void shedOne(String key, Waiting request, String reason) {
        count(shed, request.type()).incrementAndGet();
        request.result().complete(DeliveryResult.shed(null, reason));
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
        Cancellation.forward(request.result(), running);
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

    /**
     * Hands the finished request's slot to the next waiting one, or frees it. A waiting request whose turn comes
     * after {@link DeliveryConcurrency#maxQueueWait()} is shed: its destination is too slow for it to wait inline.
     */
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
            Waiting w = next[0];
            count(queued, w.type()).decrementAndGet();
            if (w.result().isDone()) {
                continue;
            }
            long now = clock.millis();
            if (overdue(w, now)) {
                shedOne(key, w, "waited " + (now - w.since()) + " ms for a slot of destination " + key
                        + " (delivery.maxQueueWait " + settings.maxQueueWait().toMillis() + " ms)");
                continue;
            }
            start(key, w);
            return;
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

    /** Requests shed so far (sent to the retry path unsent), of a destination type. */
    int shed(SubscriptionType type) {
        return count(shed, type).get();
    }

    private static AtomicInteger count(Map<SubscriptionType, AtomicInteger> counts, SubscriptionType type) {
        return counts.computeIfAbsent(type, t -> new AtomicInteger());
    }
}
