package io.changestream.alerts.destination;

import io.changestream.topics.model.SubscriptionType;
import java.time.Clock;
import java.time.Duration;
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
 * The bulkhead of each destination (decision 2101): a bounded number of requests in flight per destination (keyed
 * like the circuit breakers); a request past the limit waits in that destination's FIFO queue (at most
 * {@link DeliveryConcurrency#maxQueuedPerDestination()}) and is started by the completion of an earlier one, so no
 * caller ever waits.
 *
 * <p>The limit adapts, as TCP's window does: a destination starts with {@value #INITIAL_LIMIT} requests in flight,
 * gains one per answer that came while it was at its limit, up to
 * {@link DeliveryConcurrency#maxConcurrentPerDestination()}, and halves on a request that got no answer (timeout,
 * connection lost, cancelled). So a receiver that stops answering holds few requests on the wire, each for at most
 * its deadline.
 *
 * <p>A destination that stalls sheds instead of queueing: a request completes at once with a
 * {@link DeliveryResult#shed shed} result — never sent, not an attempt — and the alert processor hands its pair to the
 * retry path, when every slot is busy and none answered for
 * {@link DeliveryConcurrency#stallTimeout()} or four times the destination's recent answer time, whichever is longer
 * (the queue behind it is shed too), or when a waiting request's turn comes after
 * {@link DeliveryConcurrency#maxQueueWait()}. A busy but answering destination keeps its queue; when it is full, one
 * more is a throttled retry after {@link #QUEUE_FULL_WAIT}, inline, as before (not an attempt, never dropped).
 *
 * <p>A destination's entry exists only while it has requests in flight, so the map is bounded by the requests in
 * flight. Cancelling a request's future cancels the send (the HTTP exchange is aborted); a queued one is skipped.
 * Thread-safe; the in-flight, queued and shed counts per destination type feed the registry's meters.
 */
final class DestinationConcurrency {

    /** Requests in flight a destination starts with (or its maximum, when lower). */
    static final int INITIAL_LIMIT = 4;
    /** When the queue is full (the destination still answering), the request comes back after this. */
    static final Duration QUEUE_FULL_WAIT = Duration.ofMillis(200);

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

    /** One destination's running count, limit and waiting requests; guarded by the map's compute. */
    private static final class Slot {
        int running;
        int limit;
        /** Epoch ms of the last answer, or of the slot's first request. */
        long lastAnswer;
        /** Moving average of the answer time, ms (0: none yet). */
        double answerMillis;
        final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

        Slot(int limit, long now) {
            this.limit = limit;
            this.lastAnswer = now;
        }
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
        /** Every slot busy and the queue full, the destination still answering: a throttled retry, inline. */
        FULL,
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
            Slot s = slot == null ? new Slot(Math.min(INITIAL_LIMIT, settings.maxConcurrentPerDestination()), now)
                    : slot;
            if (s.running < s.limit) {
                s.running++;
                admission[0] = Admission.START;
            } else if (stalled(s, now)) {
                overdue.addAll(s.waiting); // the destination stalled: nothing queued behind it moves either
                s.waiting.clear();
                admission[0] = Admission.SHED;
            } else if (s.waiting.size() < settings.maxQueuedPerDestination()) {
                s.waiting.add(request);
                admission[0] = Admission.QUEUED;
            } else {
                admission[0] = Admission.FULL;
            }
            return s;
        });
        String stalled = "destination " + key + " answered nothing for more than "
                + settings.stallTimeout().toMillis() + " ms with every slot busy (delivery.stallTimeout)";
        for (Waiting w : overdue) {
            count(queued, w.type()).decrementAndGet();
            shedOne(w, stalled);
        }
        switch (admission[0]) {
            case START -> start(key, request);
            case QUEUED -> count(queued, type).incrementAndGet();
            case FULL -> request.result().complete(DeliveryResult.throttled(QUEUE_FULL_WAIT,
                    settings.maxQueuedPerDestination() + " requests already wait for destination " + key
                            + " (delivery.maxQueuedPerDestination)")); // busy but answering: tried again inline
            default -> shedOne(request, stalled);
        }
        return request.result();
    }

    private boolean overdue(Waiting waiting, long now) {
        return now - waiting.since() > settings.maxQueueWait().toMillis();
    }

    /** Every slot busy (the caller knows) and no answer for the stall bound. */
    private boolean stalled(Slot s, long now) {
        return now - s.lastAnswer > Math.max(settings.stallTimeout().toMillis(), (long) (4 * s.answerMillis));
    }

    private void shedOne(Waiting request, String reason) {
        count(shed, request.type()).incrementAndGet();
        request.result().complete(DeliveryResult.shed(null, reason));
    }

    private void start(String key, Waiting request) {
        count(inFlight, request.type()).incrementAndGet();
        long started = clock.millis();
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
            finished(key, started, result != null && !result.unanswered() && !result.throttled(),
                    error != null || (result != null && result.unanswered()));
            if (error != null) {
                request.result().completeExceptionally(error);
            } else {
                request.result().complete(result);
            }
        });
    }

    /**
     * Adapts the destination's limit to how the request ended ({@code answered}: +1 when the destination was at its
     * limit; {@code lost}: halved), then hands the finished request's slot to the next waiting one, or frees it. A
     * waiting request whose turn comes after {@link DeliveryConcurrency#maxQueueWait()} is shed: its destination is
     * too slow for it to wait inline.
     */
    private void finished(String key, long started, boolean answered, boolean lost) {
        long now = clock.millis();
        int released = 1;
        boolean adapt = true;
        while (released > 0) {
            List<Waiting> next = new ArrayList<>(1);
            int free = released;
            boolean adaptNow = adapt;
            slots.computeIfPresent(key, (k, slot) -> {
                if (adaptNow && answered) {
                    slot.lastAnswer = now;
                    slot.answerMillis = slot.answerMillis == 0 ? now - started
                            : 0.8 * slot.answerMillis + 0.2 * (now - started);
                    if (slot.running >= slot.limit) {
                        slot.limit = Math.min(settings.maxConcurrentPerDestination(), slot.limit + 1);
                    }
                } else if (adaptNow && lost) {
                    slot.limit = Math.max(1, slot.limit / 2);
                }
                slot.running -= free;
                while (slot.running < slot.limit && !slot.waiting.isEmpty()) {
                    next.add(slot.waiting.poll());
                    slot.running++;
                }
                return slot.running == 0 && slot.waiting.isEmpty() ? null : slot;
            });
            adapt = false;
            released = 0;
            for (Waiting w : next) {
                count(queued, w.type()).decrementAndGet();
                if (w.result().isDone()) {
                    released++;
                } else if (overdue(w, now)) {
                    shedOne(w, "waited " + (now - w.since()) + " ms for a slot of destination " + key
                            + " (delivery.maxQueueWait " + settings.maxQueueWait().toMillis() + " ms)");
                    released++;
                } else {
                    start(key, w);
                }
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

    /** Requests shed so far (sent to the retry path unsent), of a destination type. */
    int shed(SubscriptionType type) {
        return count(shed, type).get();
    }

    private static AtomicInteger count(Map<SubscriptionType, AtomicInteger> counts, SubscriptionType type) {
        return counts.computeIfAbsent(type, t -> new AtomicInteger());
    }
}
