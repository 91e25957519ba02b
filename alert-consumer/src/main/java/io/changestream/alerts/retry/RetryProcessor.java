package io.changestream.alerts.retry;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.Patience;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.pipeline.DeliverySummary;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.alerts.delivery.DeliveryDecision;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.runtime.RetryLaterException;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import io.changestream.topics.trace.TraceContext;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the retry path does with one record (decision 1120), called by {@link RetryLoop}'s workers for the head of
 * one destination's {@link DestinationQueue}: a record whose subscription was deleted or disabled, or whose
 * destination was removed or disabled, is settled at once, also while its destination is suspended (dead-lettered
 * with the reason, recorded in the ledger as dead-lettered, counted as {@code dropped}: issue 21 item 7); a
 * destination that is suspended parks it (looked at again every {@code retry.recheckInterval}); before its
 * {@code notBefore} it waits (a resume cuts the wait short); else it is delivered. Delivered or dead-lettered, the
 * pair is settled in the ledger like on the main path (so a repeat of the event is skipped), then the destination's
 * progress on the record's partition is recorded ({@link DestinationStates#drained}). A 410 suspends the
 * destination and parks the record; so do {@code retry.suspendAfterFailures} consecutive failures or
 * {@code retry.suspendAfterDuration} of failing; a subscription's {@code retries} running out dead-letters it, and
 * so does a request of an at-most-once destination that got no answer (it may have arrived: it is not sent again).
 * A record already settled here (a second hand-off after a crash) is settled once. Thread-safe: one destination's
 * records are tried by one worker at a time.
 *
 * <p>Meters: {@code changestream_alert_retry_settled_total{result}}.
 */
final class RetryProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(RetryProcessor.class);

    private final RetrySettings settings;
    private final DestinationStates states;
    private final DestinationRegistry destinations;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final String pipelineStatusTopic;
    private final Set<io.changestream.topics.model.SubscriptionType> atMostOnceTypes;
    private final Clock clock;
    private final Map<String, Streak> streaks = new ConcurrentHashMap<>();
    private final Set<String> settled;
    /** Pairs counted in the summary here (pair key), so a pair whose several groups were parked counts once. */
    private final Set<String> summarized;
    private final DeliverySummary summary;
    private final MeterRegistry meters;

    /** One record between its tries; the worker trying its destination's head changes it. */
    static final class Progress {
        final long handedOffAt;
        volatile int attempts;
        volatile long notBefore;
        /** When the current wait was set: a resume after it cuts the wait short. */
        volatile long waitSetAt;
        volatile boolean delivered;
        /** An at-most-once send of it was marked started by this instance (decision 2104). */
        volatile boolean attemptedHere;

        Progress(RetryRecord r) {
            this.handedOffAt = r.handedOffAt();
            this.attempts = r.attempts();
            this.notBefore = r.notBefore();
            this.waitSetAt = r.handedOffAt();
        }
    }

    /** What became of a try: settled (the next record of the destination may go), or wait until {@code at}. */
    record Step(boolean settled, long at, String reason) {
        static final Step SETTLED = new Step(true, 0, null);
    }

    /** Consecutive failures of one destination in the retry path. */
    private record Streak(int failures, long since) {
    }

    RetryProcessor(RetrySettings settings, DestinationStates states, DestinationRegistry destinations,
                   DeliveryLedger ledger, DeadLetterWriter deadLetters,
                   Supplier<List<ActiveSubscription>> subscriptions, PipelineSettings pipeline,
                   DeliverySummary summary, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.states = states;
        this.destinations = destinations;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.subscriptions = subscriptions;
        this.pipelineStatusTopic = pipeline.pipelineStatusTopic();
        this.atMostOnceTypes = pipeline.atMostOnceTypes();
        this.summary = summary;
        this.meters = meters;
        this.clock = clock;
        this.settled = lastKeys(settings.dedupeEntries());
        this.summarized = lastKeys(settings.dedupeEntries());
    }

    /** A set keeping the last {@code max} keys added. */
    private static Set<String> lastKeys(int max) {
        return Collections.synchronizedSet(Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > max;
            }
        }));
    }

    /**
     * Whether the record was settled already: here (a second hand-off of the pair after a crash), or by a previous
     * owner of its partition (at or below the destination's published progress there).
     */
    boolean alreadySettled(TopicPartition tp, long offset, RetryRecord r) {
        return settled.contains(r.settlementKey()) || states.of(r.destination()).settled(tp.partition(), offset);
    }

    /** Counts a record the loop settled without a try (duplicate, unreadable). */
    void skipped(String result) {
        count(result);
    }

    /**
     * Tries one record, the head of its destination on its partition, without waiting for the receiver: the send
     * goes out through {@link DestinationRegistry#deliverAsync}, and what its result means (settle, dead-letter,
     * suspend, wait) is worked out on {@code after} (the loop's workers), so a hanging receiver holds no thread,
     * only its own destination's queue. The stage fails with a {@link RetryLaterException} when a ledger, DLQ or
     * state write was not acked (the loop tries again later). Cancelling the stage aborts the send.
     */
    CompletableFuture<Step> attempt(TopicPartition tp, long offset, RetryRecord r, Progress p, Executor after) {
        long now = clock.millis();
        if (!p.delivered && alreadySettled(tp, offset, r)) {
            return CompletableFuture.completedFuture(done(tp, offset, r, "duplicate"));
        }
        Optional<Target> target = target(r);
        if (target.isEmpty()) {
            // deleted or disabled while parked: nobody wants these any more, also while the destination is
            // suspended (a resume would answer 404 after a delete). Dead-lettered so what was never sent stays
            // visible, and recorded in the ledger so a repeat of the event is not sent either.
            return CompletableFuture.completedFuture(drop(tp, offset, r, p));
        }
        Optional<String> suspended = states.suspension(r.destination());
        if (suspended.isPresent()) {
            return CompletableFuture.completedFuture(waitFor(settings.recheckInterval().toMillis(),
                    "destination suspended: " + suspended.get()));
        }
        boolean resumed = states.of(r.destination()).resumedAt() > p.waitSetAt;
        if (resumed) {
            p.notBefore = 0; // resumed by hand: try now
            p.waitSetAt = now;
        }
        if (p.delivered) {
            return CompletableFuture.completedFuture(settle(tp, offset, r, p, DeliveryRecord.DELIVERED, "delivered"));
        }
        if (now < p.notBefore) {
            return CompletableFuture.completedFuture(waitFor(Math.min(p.notBefore - now,
                    settings.recheckInterval().toMillis()), r.reason()));
        }
        int attempt = p.attempts + 1;
        DeliveryRequest request = request(r, target.get(), attempt);
        if (resumed) {
            destinations.resume(request); // a receiver's Retry-After pause ends with the resume
        }
        Target t = target.get();
        boolean atMostOnce = t.group().atMostOnce(atMostOnceTypes);
        if (atMostOnce) {
            if (!p.attemptedHere && states.attempted(r.destination(), tp.partition(), offset)) {
                // a previous owner started this send and stopped before settling it: it may have arrived
                return CompletableFuture.completedFuture(unknownOutcome(tp, offset, r, p, t));
            }
            states.attempting(r.destination(), tp.partition(), offset); // acked before the send (throws if not)
            p.attemptedHere = true;
        }
        CompletableFuture<DeliveryResult> send = destinations.deliverAsync(request, Patience.WAIT);
        CompletableFuture<Step> step = send.handleAsync((result, error) -> {
            if (error != null) {
                if (atMostOnce) {
                    return unknownOutcome(tp, offset, r, p, t); // it may have gone out: never sent again
                }
                throw new RetryLaterException("retry-path send of " + r.settlementKey() + " did not complete: " + error,
                        error);
            }
            Step next = outcome(tp, offset, r, p, t, attempt, result);
            if (atMostOnce && !next.settled()) {
                // answered without being taken, or never sent: a try again may go (a settled one's mark goes after
                // the progress that says so is published: RetryLoop)
                states.attemptEnded(r.destination(), tp.partition(), offset);
            }
            return next;
        }, after);
        step.whenComplete((s, e) -> {
            if (step.isCancelled()) {
                send.cancel(true); // a cancelled try reaches the wire: the HTTP exchange is aborted
            }
        });
        return step;
    }

    /** An at-most-once record whose send may have arrived and was never settled: dead-lettered, not sent again. */
    private Step unknownOutcome(TopicPartition tp, long offset, RetryRecord r, Progress p, Target t) {
        deadLetter(r, t, DeliveryDecision.UNKNOWN_OUTCOME, p.attempts, 0);
        return settle(tp, offset, r, p, DeliveryRecord.DEAD_LETTERED, "unknownOutcome");
    }

    /**
     * What a send's result means for the record, as {@link DeliveryDecision} decides for every path (decision 2102):
     * on the retry path every retry waits here (its inline budget is zero), a 410 suspends the destination.
     */
    private Step outcome(TopicPartition tp, long offset, RetryRecord r, Progress p, Target target, int attempt,
                         DeliveryResult result) {
        EventSubscription sub = target.subscription();
        long now = clock.millis();
        DeliveryDecision decision = DeliveryDecision.of(result, new DeliveryDecision.Facts(
                target.group().atMostOnce(atMostOnceTypes), attempt, sub.retries(), Duration.ZERO, Duration.ZERO,
                true, settings.backoffAfter(attempt)));
        switch (decision.action()) {
            case DONE -> {
                streaks.remove(r.destination());
                p.attempts = attempt;
                p.delivered = true;
                return settle(tp, offset, r, p, DeliveryRecord.DELIVERED, "delivered");
            }
            case SUSPEND -> {
                states.suspend(r.destination(), result.reason(), "receiver");
                LOG.warn("destination {} suspended: {}; its retry-path records are parked until resumed",
                        r.destination(), result.reason());
                return waitFor(settings.recheckInterval().toMillis(), result.reason());
            }
            case DEAD_LETTER -> {
                // a permanent answer keeps the retries it had left; the rest (exhausted, or an at-most-once request
                // that may have arrived: decision 1111) have none
                p.attempts = attempt;
                boolean permanent = result.outcome() == DeliveryResult.Kind.PERMANENT;
                deadLetter(r, target, decision.reason(), attempt, permanent ? Math.max(0, sub.retries()
                        - (attempt - 1)) : 0);
                return settle(tp, offset, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
            }
            default -> {
                if (!result.throttled()) {
                    p.attempts = attempt;
                    failed(r.destination(), result.reason(), now);
                }
                // a shed send (its destination stalled, its circuit open) looks again no sooner than the recheck
                long wait = result.shed() ? Math.max(decision.delay().toMillis(), settings.recheckInterval()
                        .toMillis()) : decision.delay().toMillis();
                p.notBefore = now + wait;
                p.waitSetAt = now;
                return waitFor(Math.min(wait, settings.recheckInterval().toMillis()), result.reason());
            }
        }
    }

    /** A final failure of a try (an unexpected error): the pair is dead-lettered and settled, never dropped. */
    Step failedForGood(TopicPartition tp, long offset, RetryRecord r, Progress p, String reason) {
        if (p.delivered) {
            return settle(tp, offset, r, p, DeliveryRecord.DELIVERED, "delivered");
        }
        Optional<Target> target = target(r);
        if (target.isEmpty()) {
            return drop(tp, offset, r, p);
        }
        deadLetter(r, target.get(), reason, p.attempts, 0);
        return settle(tp, offset, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
    }

    /** The subscription is gone or disabled, or the destination group is: dead-letter, settle, count, log. */
    private Step drop(TopicPartition tp, long offset, RetryRecord r, Progress p) {
        Optional<EventSubscription> sub = subscriptions.get().stream().filter(a -> a.id().equals(r.subscriptionId()))
                .map(ActiveSubscription::subscription).findFirst();
        String why = sub.isEmpty() ? "subscription deleted"
                : Boolean.FALSE.equals(sub.get().enabled()) ? "subscription disabled" : "destination removed or disabled";
        LOG.info("retry record {}@{} of {}: {} while it waited on the retry path; dead-lettered, not delivered",
                tp, offset, r.destination(), why);
        deadLetters.write(new FailedEvent(r.subscriptionId(), dlqEvent(r), why + " while parked on the retry path",
                FailureSource.SUBSCRIBER, 0, p.attempts, clock.millis(), r.groupKey()));
        Step settled = settle(tp, offset, r, p, DeliveryRecord.DEAD_LETTERED, "dropped");
        if (states.suspension(r.destination()).isPresent() && !referenced(r.destination())) {
            // no subscription has the destination any more: its suspension ends with it (not counted as suspended)
            states.resume(r.destination(), why);
        }
        return settled;
    }

    /** Whether any subscription (enabled or not) still has a destination with this key. */
    private boolean referenced(String destination) {
        for (ActiveSubscription active : subscriptions.get()) {
            for (io.changestream.topics.model.SubscriptionDestination d : active.subscription().destinations()) {
                if (destination.equals(RetryPath.destinationKey(active.subscription(), d))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A failure in the retry path: after a streak or a duration of them, the destination is suspended. */
    private void failed(String destination, String reason, long now) {
        Streak s = streaks.get(destination);
        s = s == null ? new Streak(1, now) : new Streak(s.failures() + 1, s.since());
        if (streaks.size() < settings.maxDestinations() || streaks.containsKey(destination)) {
            streaks.put(destination, s);
        }
        boolean streak = settings.suspendAfterFailures() > 0 && s.failures() >= settings.suspendAfterFailures();
        boolean duration = now - s.since() >= settings.suspendAfterDuration().toMillis();
        if (streak || duration) {
            String why = (streak ? s.failures() + " consecutive failures" : "failing since " + Instant.ofEpochMilli(
                    s.since())) + " in the retry path, last: " + reason;
            states.suspend(destination, why, "retry path");
            streaks.remove(destination);
            LOG.warn("destination {} suspended: {}", destination, why);
        }
    }

    private Step waitFor(long millis, String reason) {
        return new Step(false, clock.millis() + Math.max(1, millis), reason == null ? "waiting" : reason);
    }

    /** Settles the pair in the ledger, records the destination's progress, forgets the record. */
    private Step settle(TopicPartition tp, long offset, RetryRecord r, Progress p, String status, String result) {
        ledger.record(new TopicPartition(r.sourceTopic(), r.sourcePartition()), r.sourceOffset(), r.subscriptionId(),
                r.eventId(), status, p.attempts);
        // the pair's first path left it unsettled in this instance's summary: counted where it settles, once
        if (summarized.add(r.subscriptionId() + "/" + r.eventId())) {
            if (DeliveryRecord.DELIVERED.equals(status)) {
                summary.delivered(r.subscriptionId(), r.eventId());
            } else if (DeliveryRecord.DEAD_LETTERED.equals(status)) {
                summary.deadLettered(r.subscriptionId());
            }
        }
        return done(tp, offset, r, result);
    }

    private Step done(TopicPartition tp, long offset, RetryRecord r, String result) {
        settled.add(r.settlementKey()); // the loop publishes the destination's progress once no earlier one is open
        count(result);
        return Step.SETTLED;
    }

    private void count(String result) {
        AlertMeter.RETRY_SETTLED.counter().tag("result", result)
                .register(meters).increment();
    }

    /** The subscription and destination group a record is for, if they still exist. */
    private record Target(EventSubscription subscription, DestinationGroup group, ChangeEvent change,
                          PipelineRunStatus run) {
    }

    private Optional<Target> target(RetryRecord r) {
        boolean run = r.sourceTopic().equals(pipelineStatusTopic);
        for (ActiveSubscription active : subscriptions.get()) {
            if (!active.id().equals(r.subscriptionId())) {
                continue;
            }
            EventSubscription sub = active.subscription();
            for (DestinationGroup g : DestinationGroup.of(sub, run)) {
                if (g.key().equals(r.groupKey())) {
                    return Optional.of(run ? new Target(sub, g, null, Serdes.pipelineRunStatus().fromJson(r.value()))
                            : new Target(sub, g, Serdes.changeEvent().fromJson(r.value()), null));
                }
            }
        }
        return Optional.empty();
    }

    private static DeliveryRequest request(RetryRecord r, Target t, int attempt) {
        TraceContext trace = r.traceparent() == null ? null : TraceContext.parse(r.traceparent()).orElse(null);
        return new DeliveryRequest(t.subscription(), t.group().destination(), t.change(), t.run(), attempt, trace);
    }

    private void deadLetter(RetryRecord r, Target t, String reason, int attempts, int retriesLeft) {
        deadLetters.write(new FailedEvent(r.subscriptionId(), dlqEvent(r), reason, FailureSource.SUBSCRIBER,
                retriesLeft, attempts, clock.millis(), t.group().memberIds().get(0)));
    }

    /** The change event a dead letter carries; a run status as the main path shows it. */
    private ChangeEvent dlqEvent(RetryRecord r) {
        if (!r.sourceTopic().equals(pipelineStatusTopic)) {
            return Serdes.changeEvent().fromJson(r.value());
        }
        PipelineRunStatus run = Serdes.pipelineRunStatus().fromJson(r.value());
        return new ChangeEvent(r.eventId(), "pipelineStatus", "ingestionPipeline", run.pipelineFqn(), null,
                run.pipelineFqn(), null, null, null, null, run.timestamp(), null, Json.mapper().valueToTree(run),
                null);
    }
}
