package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.Cancellation;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Patience;
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
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * <p>A destination stalls when every slot is busy and none answered for {@link DeliveryConcurrency#stallTimeout()}
 * (a fixed bound: a receiver that takes longer than that to answer, under load, is one the commit path must not wait
 * for). A timer fires at that bound whenever requests wait: a stalled destination's {@link Patience#SHED} requests —
 * queued ones and new ones — complete at once with a {@link DeliveryResult#shed shed} result (never sent, not an
 * attempt) and the alert processor hands their pairs to the retry path; so does one whose turn comes after
 * {@link DeliveryConcurrency#maxQueueWait()}, and one that finds the queue full when the destination is not known to
 * answer promptly and answered nothing since its oldest waiting request came and for a quarter of the stall bound —
 * with the queue (left waiting, it would hold that many events, and the keys behind them, in the runtime). Otherwise
 * a full queue is a throttled retry inline, after {@link #QUEUE_FULL_WAIT}; while the destination's answers take at
 * most a quarter of the stall bound (a moving average), or before its first answer, it is
 * {@link DeliveryResult#backpressure backpressure}, which does not spend the pair's inline budget: the service is
 * behind, not the destination (decision 2202: shedding those queues, or handing their pairs off after the budget,
 * moved healthy destinations of a CPU-saturated service onto the retry path, and every later pair of theirs behind
 * them). {@link Patience#WAIT} requests keep their place in the queue however slow the destination; a full queue is a
 * throttled result for them.
 *
 * <p>A destination's entry exists only while it has requests in flight or waiting, so the map is bounded by them.
 * Cancelling a request's future cancels the send (the HTTP exchange is aborted); a queued one is skipped.
 * Thread-safe; the in-flight, queued and shed counts per destination type feed the registry's meters.
 */
public final class DestinationConcurrency implements AutoCloseable {

    /** Requests in flight a destination starts with (or its maximum, when lower). */
    static final int INITIAL_LIMIT = 4;
    /** Answers the answer-time average spans once it has them (before that: their mean). */
    static final int ANSWERS_AVERAGED = 32;
    /** When the queue of an answering destination is full, a request comes back after this (inline). */
    static final Duration QUEUE_FULL_WAIT = Duration.ofMillis(200);
    /**
     * Requests held back by a destination's full queue that are told when it has room, at most, per destination
     * (later ones come back after {@link #QUEUE_FULL_WAIT}); each is a future, and none is older than that wait.
     */
    static final int MAX_TOLD_PER_DESTINATION = 4_096;

    private final DeliveryConcurrency settings;
    private final Clock clock;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> queued = new ConcurrentHashMap<>();
    private final Map<SubscriptionType, AtomicInteger> shed = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;

    public DestinationConcurrency(DeliveryConcurrency settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cs-delivery-stall-timer");
            t.setDaemon(true);
            return t;
        });
    }

    /** One destination's running count, limit and waiting requests; guarded by the map's compute. */
    private static final class Slot {
        int running;
        int limit;
        /** Epoch ms of the last answer, or of the slot's first request. */
        long lastAnswer;
        /**
         * How long its answers take, ms, or -1 before the first: the mean of the answers so far, then a moving average
         * over about the last 32 (so the first answer of a cold service, with its connection to open, weighs 1/n, not
         * 31/32 of the next 32).
         */
        long answerMillis = -1;
        /** Answers counted into {@link #answerMillis}, up to 32. */
        int answers;
        /** Whether a stall check is scheduled. */
        boolean checking;
        final ArrayDeque<Request> waiting = new ArrayDeque<>();
        /** Backpressured requests to tell when the queue has room, oldest first. */
        final ArrayDeque<Knock> knocking = new ArrayDeque<>();

        Slot(int limit, long now) {
            this.limit = limit;
            this.lastAnswer = now;
        }
    }

    /** One request, waiting or on the wire; {@code result} is what the caller gets. */
    private record Request(SubscriptionType type, Patience patience,
                           Supplier<? extends CompletionStage<DeliveryResult>> send,
                           CompletableFuture<DeliveryResult> result, long since) {
    }

    /** A request that found the queue full at {@code since}, told through {@code room} when there is room. */
    private record Knock(CompletableFuture<Void> room, long since) {
    }

    /** What {@link #submit} decided under the destination's lock. */
    private enum Admission {
        /** A slot was free: send now. */
        START,
        /** Every slot busy: wait in the queue. */
        QUEUED,
        /** Every slot busy and the queue full, the destination slow to answer (or the request waits): throttled. */
        FULL,
        /** Every slot busy and the queue full, the destination answering promptly: backpressure. */
        BEHIND,
        /** The destination cannot take it: shed, with its queue. */
        SHED
    }

    /**
     * Starts {@code send} now when the destination has a free slot, else queues it, or sheds it as its
     * {@code patience} says when the destination is stalled or its queue full; cancelling the returned future
     * cancels the request (a queued one is skipped when its turn comes).
     */
    public CompletableFuture<DeliveryResult> submit(String key, SubscriptionType type, Patience patience,
                                             Supplier<? extends CompletionStage<DeliveryResult>> send) {
        long now = clock.millis();
        Request request = new Request(type, patience, send, new CompletableFuture<>(), now);
        Admission[] admission = {Admission.START};
        boolean[] check = {false};
        List<Request> leaving = new ArrayList<>(0);
        List<Knock> told = new ArrayList<>(0);
        String[] why = {null};
        @SuppressWarnings("unchecked")
        CompletableFuture<Void>[] room = new CompletableFuture[1];
        slots.compute(key, (k, slot) -> {
            Slot s = slot == null ? new Slot(Math.min(INITIAL_LIMIT, settings.maxConcurrentPerDestination()), now)
                    : slot;
            if (s.running < s.limit) {
                s.running++;
                admission[0] = Admission.START;
            } else if (stalled(s, now) && patience != Patience.WAIT) {
                takeSheddable(s, leaving); // the destination stalled: nothing queued behind it moves either
                takeAllKnocks(s, told);
                admission[0] = Admission.SHED;
                why[0] = stallReason(key);
            } else if (s.waiting.size() < settings.maxQueuedPerDestination()) {
                s.waiting.add(request);
                admission[0] = Admission.QUEUED;
            } else {
                why[0] = settings.maxQueuedPerDestination() + " requests already wait for destination " + key
                        + " (delivery.maxQueuedPerDestination)";
                boolean prompt = s.answerMillis >= 0 && s.answerMillis <= promptAnswerMillis();
                if (patience != Patience.WAIT && !prompt && s.lastAnswer <= s.waiting.peekFirst().since
                        && now - s.lastAnswer > promptAnswerMillis()) {
                    // not known to answer promptly, and it filled its queue without answering for a while (not a
                    // burst at its first requests): the queue leaves too, before it holds the runtime
                    takeSheddable(s, leaving);
                    takeAllKnocks(s, told);
                    admission[0] = Admission.SHED;
                } else {
                    // busy but answering: tried again inline; backpressure when it answers promptly (the service
                    // is behind, not the destination), told when the queue has room
                    admission[0] = prompt || s.answerMillis < 0 ? Admission.BEHIND : Admission.FULL;
                    if (admission[0] == Admission.BEHIND) {
                        room[0] = knock(s, now);
                    }
                }
            }
            check[0] = arm(s);
            return s;
        });
        if (check[0]) {
            scheduleCheck(key, settings.stallTimeout().toMillis());
        }
        shedAll(leaving, why[0]);
        tell(told);
        switch (admission[0]) {
            case START -> start(key, request);
            case QUEUED -> count(queued, type).incrementAndGet();
            case FULL -> request.result().complete(DeliveryResult.throttled(QUEUE_FULL_WAIT, why[0]));
            case BEHIND -> request.result().complete(DeliveryResult.backpressure(QUEUE_FULL_WAIT, why[0], room[0]));
            default -> shedOne(request, why[0]);
        }
        return request.result();
    }

    /**
     * A backpressured request's signal of room (null when {@link #MAX_TOLD_PER_DESTINATION} wait for one); knocks
     * older than {@link #QUEUE_FULL_WAIT} leave first: their requests came back on their own.
     */
    private static CompletableFuture<Void> knock(Slot s, long now) {
        forgetStale(s, now);
        if (s.knocking.size() >= MAX_TOLD_PER_DESTINATION) {
            return null;
        }
        CompletableFuture<Void> room = new CompletableFuture<>();
        s.knocking.add(new Knock(room, now));
        return room;
    }

    private static void forgetStale(Slot s, long now) {
        while (!s.knocking.isEmpty() && now - s.knocking.peekFirst().since() > QUEUE_FULL_WAIT.toMillis()) {
            s.knocking.pollFirst();
        }
    }

    /** Moves up to {@code rooms} knocks still waiting, oldest first, to {@code out}. */
    private static void takeKnocks(Slot s, int rooms, long now, List<Knock> out) {
        forgetStale(s, now);
        for (int i = 0; i < rooms && !s.knocking.isEmpty(); i++) {
            out.add(s.knocking.pollFirst());
        }
    }

    /** Moves every knock, stale ones too (a stall or the slot's end tells them all), to {@code out}. */
    private static void takeAllKnocks(Slot s, List<Knock> out) {
        out.addAll(s.knocking);
        s.knocking.clear();
    }

    /** Tells the knocks there is room (outside the destination's lock: their callers go on from here). */
    private static void tell(List<Knock> knocks) {
        for (Knock knock : knocks) {
            knock.room().complete(null);
        }
    }

    /** Answers of a destination that take at most this long (a quarter of the stall bound) are prompt. */
    private long promptAnswerMillis() {
        return settings.stallTimeout().toMillis() / 4;
    }

    private String stallReason(String key) {
        return "destination " + key + " answered nothing for more than " + settings.stallTimeout().toMillis()
                + " ms with every slot busy (delivery.stallTimeout)";
    }

    /** Whether a stall check must be scheduled now: the slot is at its limit or has a queue, and none is armed. */
    private static boolean arm(Slot s) {
        if (s.checking || (s.running < s.limit && s.waiting.isEmpty())) {
            return false;
        }
        s.checking = true;
        return true;
    }

    /** Moves the queue's sheddable requests to {@code out}; the retry path's keep their place. */
    private static void takeSheddable(Slot s, List<Request> out) {
        s.waiting.removeIf(w -> {
            if (w.patience() != Patience.WAIT) {
                out.add(w);
                return true;
            }
            return false;
        });
    }

    private void shedAll(List<Request> requests, String reason) {
        for (Request w : requests) {
            count(queued, w.type()).decrementAndGet();
            shedOne(w, reason);
        }
    }

    /**
     * The stall timer, armed while the destination is at its limit or has a queue: when it stalled, its queued
     * sheddable requests are shed; then it looks again one stall bound after the last answer (or from now).
     */
    private void checkStall(String key) {
        long now = clock.millis();
        long bound = settings.stallTimeout().toMillis();
        List<Request> leaving = new ArrayList<>(0);
        List<Knock> told = new ArrayList<>(0);
        long[] next = {-1};
        slots.computeIfPresent(key, (k, s) -> {
            if (stalled(s, now)) {
                takeSheddable(s, leaving);
                takeAllKnocks(s, told); // they find it stalled: shed now, not at their wait's end
            }
            if (s.running < s.limit && s.waiting.isEmpty()) {
                s.checking = false;
            } else {
                next[0] = Math.max(1, Math.max(s.lastAnswer, now - bound) + bound + 1 - now);
            }
            if (s.running == 0 && s.waiting.isEmpty()) {
                takeAllKnocks(s, told);
                return null;
            }
            return s;
        });
        shedAll(leaving, stallReason(key));
        tell(told);
        if (next[0] > 0) {
            scheduleCheck(key, next[0]);
        }
    }

    private void scheduleCheck(String key, long delayMillis) {
        try {
            timer.schedule(() -> checkStall(key), Math.max(1, delayMillis), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing: the queued requests are cancelled with their callers
        }
    }

    private boolean overdue(Request waiting, long now) {
        return waiting.patience() != Patience.WAIT && now - waiting.since() > settings.maxQueueWait().toMillis();
    }

    /** Every slot busy and no answer for the stall bound. */
    private boolean stalled(Slot s, long now) {
        return s.running >= s.limit && now - s.lastAnswer > settings.stallTimeout().toMillis();
    }

    private void shedOne(Request request, String reason) {
        count(shed, request.type()).incrementAndGet();
        request.result().complete(DeliveryResult.shed(null, reason));
    }

    private void start(String key, Request request) {
        count(inFlight, request.type()).incrementAndGet();
        long sent = clock.millis();
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
            finished(key, result != null && !result.unanswered() && !result.throttled(),
                    error != null || (result != null && result.unanswered()), clock.millis() - sent);
            if (error != null) {
                request.result().completeExceptionally(error);
            } else {
                request.result().complete(result);
            }
        });
    }

    /**
     * Adapts the destination's limit to how the request ended ({@code answered}: +1 when the destination was at its
     * limit, and {@code tookMillis} joins its answer time; {@code lost}: halved), then hands the finished request's
     * slot to the next waiting one, or frees it. A waiting sheddable request whose turn comes after
     * {@link DeliveryConcurrency#maxQueueWait()} is shed: its destination is too slow for it to wait inline.
     */
    private void finished(String key, boolean answered, boolean lost, long tookMillis) {
        long now = clock.millis();
        int released = 1;
        boolean adapt = true;
        boolean[] check = {false};
        while (released > 0) {
            List<Request> next = new ArrayList<>(1);
            List<Knock> told = new ArrayList<>(0);
            int free = released;
            boolean adaptNow = adapt;
            slots.computeIfPresent(key, (k, slot) -> {
                if (adaptNow && answered) {
                    slot.lastAnswer = now;
                    slot.answers = Math.min(ANSWERS_AVERAGED, slot.answers + 1);
                    slot.answerMillis = slot.answerMillis < 0 ? tookMillis // smooth: one pause is not a slow receiver
                            : (slot.answerMillis * (slot.answers - 1) + tookMillis) / slot.answers;
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
                check[0] |= arm(slot);
                if (slot.running == 0 && slot.waiting.isEmpty()) {
                    takeAllKnocks(slot, told);
                    return null;
                }
                // each request that left the queue made room for one that found it full
                takeKnocks(slot, next.size(), now, told);
                return slot;
            });
            tell(told);
            adapt = false;
            released = 0;
            for (Request w : next) {
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
        if (check[0]) {
            scheduleCheck(key, settings.stallTimeout().toMillis());
        }
    }

    /** Requests in flight now, of a destination type. */
    public int inFlight(SubscriptionType type) {
        return count(inFlight, type).get();
    }

    /** Requests waiting for their destination's slot, of a destination type. */
    public int queued(SubscriptionType type) {
        return count(queued, type).get();
    }

    /** Requests shed so far (sent to the retry path unsent), of a destination type. */
    public int shed(SubscriptionType type) {
        return count(shed, type).get();
    }

    /** Stops the stall timer; requests still waiting end with their callers' cancels. */
    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static AtomicInteger count(Map<SubscriptionType, AtomicInteger> counts, SubscriptionType type) {
        return counts.computeIfAbsent(type, t -> new AtomicInteger());
    }
}
