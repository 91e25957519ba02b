package io.changestream.alerts.pipeline;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.delivery.DeliveryDecision;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.Patience;
import io.changestream.alerts.destination.lineage.RunEvents;
import io.changestream.alerts.digest.DigestCollector;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.RetryLaterException;
import io.changestream.runtime.Stages;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import io.changestream.topics.trace.TraceContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alert {@link AsyncProcessor} and {@link FailureHandler} on the consumer runtime. For each record of
 * {@code changes} (or {@code pipeline-status}) and each enabled subscription: skip the pair when the group's ledger
 * knows it settled (by event id, whatever the offset); evaluate the filter (an evaluation error dead-letters the pair
 * with source PUBLISHER); deliver once per {@link DestinationGroup}, recording each group's progress in the ledger when
 * the subscription has more than one; then settle the pair in the ledger (acked) before the event may be marked done. A
 * record that is not a readable event goes to the DLQ with its raw value (bounded), coordinates and the reason.
 *
 * <p>At most once, per destination ({@code config.delivery: "atMostOnce"}) or by type
 * ({@link PipelineSettings#atMostOnceTypes()}): an {@link LedgerRecords#ATTEMPTING} record is acked before the send;
 * after a crash, a group attempted but never settled is not sent again but dead-lettered with the reason
 * {@value #UNKNOWN_OUTCOME}. Other destinations are at least once; the Idempotency-Key closes their last gap.
 *
 * <p>Destination outcomes: delivered → done; retry → the event is retried (after the receiver's Retry-After when
 * given, else the runtime's backoff) and only the groups not yet delivered are tried again; permanent → DLQ with
 * source SUBSCRIBER; more retries than the subscription's {@code retries} → DLQ with {@code retriesLeft} 0. A final
 * failure of the runtime (timeout, its own attempt limit) dead-letters every pair not yet settled.
 *
 * <p>An event replayed from the DLQ carries {@value #REPLAY_SUBSCRIPTION_HEADER} and is delivered to that
 * subscription only; a pair dead-lettered before is delivered again, a pair delivered before (an earlier replay) is
 * not.
 *
 * <p>On release of a partition ({@link #onReleased}) no further delivery of its events starts, and the consumer
 * thread waits up to {@link PipelineSettings#releaseTimeout()} for the stages running, then cancels them, so
 * the partition is never handed over while one of its events is mid-delivery.
 *
 * <p>{@link #process} is called on the runtime's lane threads and returns at once; an event's pairs, and a pair's
 * destination groups, are delivered concurrently and complete on other threads, so its progress lives in concurrent
 * maps and volatile fields. A key's next event starts only when this one's stage completed (the runtime). The
 * per-event progress of events in flight is dropped when their partition is released ({@link PartitionListener}).
 */
public final class AlertProcessor implements AsyncProcessor<String, String>, FailureHandler<String, String>,
        PartitionListener {

    private static final Logger LOG = LoggerFactory.getLogger(AlertProcessor.class);
    /**
     * Header of an event replayed from the DLQ ({@code ops dlq replay}): the id of the one subscription it is meant
     * for; the other subscriptions already had it and skip it.
     */
    public static final String REPLAY_SUBSCRIPTION_HEADER = "cs.replay.subscription";
    /** The DLQ reason of an at-most-once group attempted by a process that crashed before settling it. */
    public static final String UNKNOWN_OUTCOME = DeliveryDecision.UNKNOWN_OUTCOME;
    /** The DLQ reason prefix of an at-most-once request that got no answer (it may have arrived). */
    public static final String UNANSWERED = DeliveryDecision.UNANSWERED;
    /** The destination config field choosing the guarantee: {@value #AT_MOST_ONCE} or {@code atLeastOnce}. */
    public static final String DELIVERY_FIELD = DestinationGroup.DELIVERY_FIELD;
    /** The value of {@value #DELIVERY_FIELD} for at-most-once. */
    public static final String AT_MOST_ONCE = DestinationGroup.AT_MOST_ONCE;
    /** MDC key of the record being processed, as the runtime names it: {@code topic-partition@offset}. */
    static final String RECORD_MDC = "record";
    /** The subscription id of dead letters of malformed source records (they belong to no subscription). */
    public static final String MALFORMED_SUBSCRIPTION = "-";

    private final PipelineSettings settings;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final DestinationRegistry destinations;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final DeliverySummary summary;
    private final Clock clock;
    private final Counter malformed;
    private final Counter unknownOutcome;
    private final EventTypeTimers processingTime;
    private final Releases releases;
    /** Scheduled and grouped subscriptions' pairs go here instead of to their destinations (issue 13); or null. */
    private final DigestCollector digests;
    private final Map<TopicPartition, Map<Long, EventProgress>> inFlight = new ConcurrentHashMap<>();
    private volatile LongRetries longRetries = LongRetries.NONE;

    /** With digests and grouping ({@code digests} null: every subscription is delivered event by event). */
    public AlertProcessor(PipelineSettings settings, Supplier<List<ActiveSubscription>> subscriptions,
                          DestinationRegistry destinations, DeliveryLedger ledger, DeadLetterWriter deadLetters,
                          DeliverySummary summary, MeterRegistry meters, Clock clock,
                          DigestCollector digests) {
        this.digests = digests;
        this.settings = settings;
        this.subscriptions = subscriptions;
        this.destinations = destinations;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.summary = summary;
        this.clock = clock;
        this.malformed = AlertMeter.MALFORMED.counter()
                .register(meters);
        this.unknownOutcome = AlertMeter.UNKNOWN_OUTCOMES.counter()
                .register(meters);
        this.processingTime = new EventTypeTimers(meters);
        this.releases = new Releases(settings.releaseTimeout(), clock, meters);
    }

    /** Hands long waits and suspended destinations to a retry path (decision 1120); before the runtime starts. */
    public void useLongRetries(LongRetries retries) {
        this.longRetries = java.util.Objects.requireNonNull(retries, "retries");
    }

    @Override
    public CompletionStage<Outcome> process(Event<String, String> event) {
        if (event.value() == null) {
            return CompletableFuture.completedFuture(Outcome.success());
        }
        long started = System.nanoTime();
        Notice notice;
        try {
            notice = read(event);
        } catch (RuntimeException e) {
            return deadLetterMalformed(event, e).thenApply(v -> Outcome.success());
        }
        // the record's log context (decision 1505), carried to the threads that complete its deliveries and cleared
        // from the lane thread when this returns
        org.slf4j.MDC.put(RECORD_MDC, event.coordinates());
        org.slf4j.MDC.put("eventId", notice.eventId());
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        Releases.Call call = releases.enter(tp);
        CompletableFuture<Outcome> outcome;
        try {
            outcome = deliver(event, notice, tp, call);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        } finally {
            org.slf4j.MDC.clear();
        }
        call.closeWhen(outcome); // also cancels its requests when the runtime cancels the stage (timeout)
        outcome.whenComplete((o, t) -> processingTime.record(notice, started));
        return outcome;
    }

    /**
     * Starts the event's pairs at once (each pair's destination groups at once too) and completes when every pair
     * has finished this attempt: success when all settled, else a retry when its first group is due (decision 2204:
     * a slot, a {@code Retry-After}; or the runtime's backoff). A pair whose ledger or DLQ write was not acked fails the stage
     * (retriable) once the other pairs finished.
     */
    private CompletableFuture<Outcome> deliver(Event<String, String> event, Notice notice, TopicPartition tp,
                                               Releases.Call call) {
        EventProgress progress = inFlight.computeIfAbsent(tp, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(event.offset(), k -> new EventProgress());
        if (progress.trace == null) { // the record's trace, or a new one when it has none; kept across attempts
            org.apache.kafka.common.header.Header header = event.headers().lastHeader(TraceContext.HEADER);
            progress.trace = TraceContext.continueOrStart(header == null ? null : header.value());
        }
        org.slf4j.MDC.put("traceId", progress.trace.traceId()); // cleared when process returns, like eventId
        boolean replay = isReplay(event);
        RetryAsk retry = new RetryAsk(clock);
        List<CompletableFuture<Void>> pairs = new ArrayList<>();
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            EventProgress.Pair known = progress.pairs.get(sub.id());
            if (known != null && known.settled()) {
                continue;
            }
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if (groups.isEmpty()) {
                continue;
            }
            org.slf4j.MDC.put("subscriptionId", sub.id());
            LogContext log = LogContext.capture();
            CompletableFuture<EventProgress.Pair> started = known != null ? CompletableFuture.completedFuture(known)
                    : start(tp, notice, active, groups, replay).thenApply(pair -> {
                        progress.pairs.put(sub.id(), pair);
                        return pair;
                    });
            pairs.add(started.thenCompose(pair -> pair.settled() ? CompletableFuture.completedFuture(null)
                    : deliverPair(new PairAttempt(tp, event, notice, sub, groups, pair, progress.trace, call, retry,
                    log))));
        }
        return CompletableFuture.allOf(pairs.toArray(CompletableFuture[]::new)).thenApply(v -> {
            if (retry.reason != null) {
                Duration after = retry.after();
                if (!retry.attempt && after != null) {
                    // no pair was sent (decision 2203): not an attempt of the runtime either; back when its first group
                    // is due (decision 2204), or sooner when a destination that held one back for its full queue has room
                    return Outcome.await(retry.room(), after, retry.reason);
                }
                if (after != null) {
                    return Outcome.retryAfter(after, retry.reason);
                }
                throw new RetryLaterException(retry.reason);
            }
            forget(tp, event.offset());
            return Outcome.success();
        });
    }

    /** One attempt of one (event, subscription) pair: what its groups' deliveries and results need. */
    private record PairAttempt(TopicPartition tp, Event<String, String> event, Notice notice, EventSubscription sub,
                               List<DestinationGroup> groups, EventProgress.Pair pair, TraceContext trace,
                               Releases.Call call, RetryAsk retry, LogContext log) {
    }

    /**
     * The attempt of one pair: every group not done yet is delivered at once ({@link #deliverGroup}), each result
     * handled as it comes ({@link #onGroupResult}); when all are handled, an attempt held back entirely by rate
     * limits is not counted, and a pair with every group done is settled in the ledger.
     */
    private CompletableFuture<Void> deliverPair(PairAttempt at) {
        return collected(at).thenCompose(collected -> collected ? CompletableFuture.completedFuture(null)
                : deliverGroups(at));
    }

    private CompletableFuture<Void> deliverGroups(PairAttempt at) {
        EventProgress.Pair pair = at.pair();
        pair.attempts++;
        List<CompletableFuture<Boolean>> sends = new ArrayList<>(); // per group: whether a request went out
        Instant now = clock.instant();
        for (DestinationGroup group : at.groups()) {
            if (pair.done.contains(group.key())) {
                continue;
            }
            EventProgress.Wait wait = pair.notBefore.get(group.key());
            if (wait != null && wait.due().isAfter(now)) {
                // back for a sibling that was due first: this one waits on for its own slot or Retry-After
                at.retry().notYet(wait);
                sends.add(CompletableFuture.completedFuture(false));
                continue;
            }
            pair.notBefore.remove(group.key());
            DeliveryRequest request = at.notice().request(at.sub(), group.destination(), pair.attempts, at.trace());
            sends.add(parked(at, group, request).thenCompose(parked -> parked ? CompletableFuture.completedFuture(false)
                    : deliverGroup(at, group, request).thenCompose(result -> onGroupResult(at, group, request, result)
                    .thenApply(v -> !result.throttled()))));
        }
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            // an attempt held back entirely (every group waited for its slot, or was parked) is not counted
            boolean sent = sends.stream().anyMatch(CompletableFuture::join);
            if (!sends.isEmpty() && !sent) {
                pair.attempts--;
            }
            Set<String> done = pair.done;
            return at.groups().stream().allMatch(g -> done.contains(g.key()))
                    ? settle(at.tp(), at.event(), at.notice(), at.sub().id(), pair)
                    : CompletableFuture.completedFuture(null);
        });
    }

    /**
     * Checked before a destination is called (decision 1120): a suspended destination, or one with earlier pairs
     * still in the retry path, gets this pair parked there too (per-destination order); completes true when the
     * retry path took it.
     */
    private CompletableFuture<Boolean> parked(PairAttempt at, DestinationGroup group, DeliveryRequest request) {
        Optional<String> reason = longRetries.parkReason(request);
        if (reason.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        try {
            at.call().requireOwned();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return handOff(at, group, request, at.pair().attempts - 1, Duration.ZERO, reason.get(), false);
    }

    /**
     * Delivers the event to one destination group of a pair, without blocking: an at-most-once group's
     * {@link LedgerRecords#ATTEMPTING} record is acked first; then the registry's asynchronous send (rate limit,
     * concurrency limit per destination, circuit breaker). A request cancelled by a release is a RETRY.
     */
    private CompletableFuture<DeliveryResult> deliverGroup(PairAttempt at, DestinationGroup group,
                                                          DeliveryRequest request) {
        try {
            at.call().requireOwned();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return at.call().track(destinations.deliverAsync(request,
                // shed unsent to the retry path like every destination: at most once is marked there before its
                // send (decision 2104)
                Patience.SHED, () -> {
                    // holding the destination's slot: the partition may have been released while it waited
                    at.call().requireOwned();
                    return markAttempting(at, group);
                }))
                .exceptionally(e -> {
                    if (Stages.unwrap(e) instanceof CancellationException) {
                        return DeliveryResult.retry(null, "cancelled: partition released");
                    }
                    throw e instanceof CompletionException c ? c : new CompletionException(e);
                });
    }

    /**
     * What one group's result means for its pair, as {@link DeliveryDecision} decides: done (its progress recorded in
     * the ledger while other groups of the pair are not done), dead-lettered (SUBSCRIBER), the destination suspended
     * and the group parked, parked on the retry path, or retried with the event.
     */
    private CompletableFuture<Void> onGroupResult(PairAttempt at, DestinationGroup group, DeliveryRequest request,
                                                  DeliveryResult result) {
        EventSubscription sub = at.sub();
        EventProgress.Pair pair = at.pair();
        if (LOG.isDebugEnabled()) {
            at.log().run(() -> LOG.debug("{} of subscription {} to {}: {}", at.notice().eventId(), sub.id(),
                    group.key(), result.outcome()));
        }
        long now = clock.millis();
        Duration waited = Duration.ofMillis(pair.firstFailedAt == 0 ? 0 : now - pair.firstFailedAt);
        DeliveryDecision decision = DeliveryDecision.of(result, new DeliveryDecision.Facts(atMostOnce(group),
                pair.attempts, sub.retries(), waited, longRetries.inlineBudget(), longRetries.exists(),
                settings.backoffAfter(at.event().attempt())));
        switch (decision.action()) {
            case DONE -> {
                pair.done.add(group.key());
                if (result.isSkipped()) { // settled without sending: /status counts it as skipped (issue 23)
                    return ledger.recordGroupAsync(at.tp(), at.event().offset(), sub.id(), at.notice().eventId(),
                            group.key(), DeliveryRecord.SKIPPED);
                }
                if (pair.done.size() < at.groups().size()) {
                    // progress per destination group: a crash before the pair settles re-sends only the rest
                    return ledger.recordGroupAsync(at.tp(), at.event().offset(), sub.id(), at.notice().eventId(),
                            group.key(), DeliveryRecord.DELIVERED);
                }
                return CompletableFuture.completedFuture(null);
            }
            case DEAD_LETTER -> {
                if (decision.reason().startsWith(UNANSWERED)) {
                    unknownOutcome.increment(); // the request may have arrived: sending it again could be twice
                }
                return deadLetter(pair, group, sub, at.notice(), decision.reason(), decision.exhausted());
            }
            case SUSPEND -> {
                // 410 Gone suspends the destination: the pair is parked in the retry path, not dead-lettered
                return handOff(at, group, request, pair.attempts, Duration.ZERO, result.reason(), true)
                        .thenCompose(took -> took ? CompletableFuture.<Void>completedFuture(null)
                                : deadLetter(pair, group, sub, at.notice(), result.reason(), false));
            }
            case PARK -> {
                // shed by the bulkhead (decision 2101) or past the inline budget: it leaves the commit path and the
                // offset commits on; an at-most-once group too when it was refused or never sent
                if (pair.firstFailedAt == 0 && !result.shed()) {
                    pair.firstFailedAt = now; // the inline budget counts from the first failure
                }
                return handOff(at, group, request, pair.attempts - (result.throttled() ? 1 : 0), decision.delay(),
                        result.reason(), false).thenAccept(took -> {
                            if (!took) {
                                retryInline(at, group, result, decision);
                            }
                        });
            }
            case RETRY_INLINE -> {
                if (pair.firstFailedAt == 0 && !result.shed() && !result.backpressure()) {
                    // the inline budget counts from the first failure; a prompt destination's full queue is none
                    // (decision 2202): its pairs wait inline, in order, however far behind the service is
                    pair.firstFailedAt = now;
                }
                retryInline(at, group, result, decision);
                return CompletableFuture.completedFuture(null);
            }
            default -> throw new IllegalStateException("unknown action " + decision.action());
        }
    }

    /**
     * The group is retried with the event: its status says when. The event comes back when its first group is due;
     * a group with a wait of its own (a slot, a {@code Retry-After}) is passed over until then, so one receiver's
     * pause never costs another destination of the event its rate-limit slot.
     */
    private static void retryInline(PairAttempt at, DestinationGroup group, DeliveryResult result,
                                    DeliveryDecision decision) {
        Instant due = at.retry().ask(result.retryAfter() != null || result.shed() ? decision.delay() : null,
                result.reason(), result);
        if (due != null && result.room() == null) { // one told of room is tried as soon as there is
            at.pair().notBefore.put(group.key(), new EventProgress.Wait(due, result.reason()));
        }
    }

    /**
     * What the pairs of one attempt ask of the runtime: the earliest time one of them is due and the last reason;
     * whether any was sent (a throttled result was not: it is no attempt, unless shed), and the signals of room of
     * backpressured ones. A wait counts from its result, not from the attempt's end: a rate limit's slot is kept
     * only when its request comes back on time (decision 2203), however long the event's other pairs took or wait.
     */
    private static final class RetryAsk {
        private final Clock clock;
        private Instant due;
        private String reason;
        private boolean attempt;
        private final List<CompletableFuture<Void>> rooms = new ArrayList<>(1);

        RetryAsk(Clock clock) {
            this.clock = clock;
        }

        /** One group's result asks to be tried again (after {@code retryAfter}; null: the runtime's backoff). */
        synchronized Instant ask(Duration retryAfter, String why, DeliveryResult result) {
            Instant ends = retryAfter == null ? null : clock.instant().plus(retryAfter);
            dueBy(ends);
            reason = why;
            if (!result.throttled() || result.shed()) { // a shed one kept inline backs off per attempt, as sent
                attempt = true;
            } else if (result.room() != null) {
                rooms.add(result.room().toCompletableFuture());
            }
            return ends;
        }

        /** A group passed over this time: it is still waiting for the wait it was given. Not an attempt. */
        synchronized void notYet(EventProgress.Wait wait) {
            dueBy(wait.due());
            if (reason == null) {
                reason = wait.reason();
            }
        }

        private void dueBy(Instant ends) {
            if (ends != null && (due == null || ends.isBefore(due))) {
                due = ends;
            }
        }

        /** How long from now until the earliest wait asked ends (zero when it has), or null when none was asked. */
        synchronized Duration after() {
            if (due == null) {
                return null;
            }
            Duration left = Duration.between(clock.instant(), due);
            return left.isNegative() ? Duration.ZERO : left;
        }

        /** Completes when one of the pairs' destinations has room (never, when none tells). */
        synchronized CompletableFuture<?> room() {
            return rooms.size() == 1 ? rooms.get(0)
                    : rooms.isEmpty() ? new CompletableFuture<Void>()
                    : CompletableFuture.anyOf(rooms.toArray(CompletableFuture[]::new));
        }
    }

    /**
     * The first look at a pair on this instance: settled already (by any instance of the group, at any offset) →
     * nothing to do; a dead-lettered pair is tried again only when the event is a DLQ replay for it. Otherwise the
     * groups the ledger knows as delivered are done, and an at-most-once group attempted before (by a process that
     * then crashed) is reported, not sent again.
     */
    private CompletableFuture<EventProgress.Pair> start(TopicPartition tp, Notice notice, ActiveSubscription active,
                                                       List<DestinationGroup> groups, boolean replay) {
        EventSubscription sub = active.subscription();
        return ledger.knownAsync(tp, sub.id(), notice.eventId()).thenCompose(known -> {
            Optional<String> status = known.status();
            if (status.isPresent() && (!replay || DeliveryRecord.DELIVERED.equals(status.get()))) {
                return CompletableFuture.completedFuture(EventProgress.Pair.SETTLED);
            }
            Verdict verdict = match(notice, active);
            if (verdict.match() == Match.NOT_WANTED) {
                return CompletableFuture.completedFuture(EventProgress.Pair.SETTLED);
            }
            EventProgress.Pair pair = new EventProgress.Pair();
            if (verdict.match() == Match.DEAD_LETTERED) {
                return deadLetterFilterFailure(notice, active, verdict.error()).thenApply(v -> {
                    // the DLQ has it; the ledger record follows in settle(), retried without writing the DLQ again
                    groups.forEach(g -> pair.done.add(g.key()));
                    pair.ended(Settlement.DEAD_LETTERED);
                    return pair;
                });
            }
            List<CompletableFuture<Void>> reported = new ArrayList<>();
            for (DestinationGroup group : groups) {
                if (known.deliveredGroups().contains(group.key())) {
                    pair.done.add(group.key());
                } else if (!replay && known.attemptedGroups().contains(group.key()) && atMostOnce(group)) {
                    unknownOutcome.increment();
                    reported.add(deadLetter(pair, group, sub, notice, UNKNOWN_OUTCOME, false));
                }
            }
            return CompletableFuture.allOf(reported.toArray(CompletableFuture[]::new)).thenApply(v -> pair);
        });
    }

    /**
     * Issue 13: a Scheduled or grouped subscription's pair is handed to its digest (a durable append to
     * {@code alert-digest}) and settled {@link DigestCollector#COLLECTED} once acked; the digest's owner sends it.
     * Completes with false (nothing written) when the subscription is delivered event by event.
     */
    private CompletableFuture<Boolean> collected(PairAttempt at) {
        EventProgress.Pair pair = at.pair();
        if (digests == null || at.notice().isRunStatus() || pair.settlement() == Settlement.DEAD_LETTERED
                || digests.policyOf(at.sub()).isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        try {
            at.call().requireOwned();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Boolean> appended = pair.state() == PairState.COLLECTED ? CompletableFuture.completedFuture(true)
                : digests.collectAsync(at.tp(), at.event().offset(), at.sub(), at.notice().change());
        return appended.thenCompose(collected -> {
            if (!collected) {
                return CompletableFuture.completedFuture(false);
            }
            pair.moveTo(PairState.COLLECTED); // a retry after a ledger timeout settles without collecting again
            return ledger.recordAsync(at.tp(), at.event().offset(), at.sub().id(), at.notice().eventId(),
                    DigestCollector.COLLECTED, 1).thenApply(v -> {
                        pair.moveTo(PairState.SETTLED);
                        return true;
                    });
        });
    }

    /**
     * Acks an at-most-once group's {@link LedgerRecords#ATTEMPTING} record once per pair on this instance (a write
     * that failed is written again by the next try); completes at once for other groups and when it is marked.
     */
    private CompletableFuture<Void> markAttempting(PairAttempt at, DestinationGroup group) {
        EventProgress.Pair pair = at.pair();
        if (!atMostOnce(group) || !pair.attempted.add(group.key())) {
            return CompletableFuture.completedFuture(null);
        }
        return ledger.recordGroupAsync(at.tp(), at.event().offset(), at.sub().id(), at.notice().eventId(),
                group.key(), LedgerRecords.ATTEMPTING).whenComplete((v, e) -> {
                    if (e != null) {
                        pair.attempted.remove(group.key());
                    }
                });
    }

    /** Whether a destination group is sent at most once: its {@code config.delivery}, else the service default. */
    private boolean atMostOnce(DestinationGroup group) {
        return group.atMostOnce(settings.atMostOnceTypes());
    }

    /** What the subscription's filter says of a notice. */
    private enum Match {
        /** Deliver it. */
        WANTED,
        /** Filtered out: nothing to deliver, nothing recorded. */
        NOT_WANTED,
        /** The filter failed: the pair was dead-lettered (PUBLISHER) and must be settled as such. */
        DEAD_LETTERED
    }

    /** What the filter said and, when it failed, why. */
    private record Verdict(Match match, String error) {
    }

    /** Whether the subscription wants the notice; an evaluation error is {@link Match#DEAD_LETTERED}. */
    private Verdict match(Notice notice, ActiveSubscription active) {
        try {
            return new Verdict(active.matches(notice.isRunStatus() ? RunEvents.filterable(notice.run())
                    : notice.change()) ? Match.WANTED : Match.NOT_WANTED, null);
        } catch (RuntimeException e) {
            return new Verdict(Match.DEAD_LETTERED, "filter evaluation failed: " + e.getMessage());
        }
    }

    /** Dead-letters a pair whose filter failed (PUBLISHER), with the evaluation error as the reason. */
    private CompletableFuture<Void> deadLetterFilterFailure(Notice notice, ActiveSubscription active, String reason) {
        EventSubscription sub = active.subscription();
        return deadLetters.writeAsync(new FailedEvent(sub.id(), notice.asChangeEvent(), reason,
                FailureSource.PUBLISHER, sub.retries(), 0, clock.millis(), null));
    }

    private CompletableFuture<Void> deadLetter(EventProgress.Pair pair, DestinationGroup group,
                                               EventSubscription sub, Notice notice, String reason,
                                               boolean exhausted) {
        int retriesLeft = exhausted ? 0 : Math.max(0, sub.retries() - (pair.attempts - 1));
        return deadLetters.writeAsync(new FailedEvent(sub.id(), notice.asChangeEvent(), reason,
                FailureSource.SUBSCRIBER, retriesLeft, pair.attempts, clock.millis(), group.memberIds().get(0)))
                .thenRun(() -> {
                    pair.done.add(group.key());
                    pair.ended(Settlement.DEAD_LETTERED);
                });
    }

    /**
     * Hands one group to the retry path; completes true when it took it (the group is then done here). An
     * at-most-once group is marked {@link LedgerRecords#ATTEMPTING} first (acked) when this instance has not marked
     * it yet: a crash between the retry record's ack and the pair's settlement then leaves the next owner of the
     * event a mark, and it reports the pair unknown instead of sending it beside the retry path (or handing it off a
     * second time, which another retry-path owner would send again).
     */
    private CompletableFuture<Boolean> handOff(PairAttempt at, DestinationGroup group, DeliveryRequest request,
                                               int attempts, Duration wait, String reason, boolean suspend) {
        EventProgress.Pair pair = at.pair();
        return markAttempting(at, group).thenCompose(v -> longRetries.handOff(new LongRetries.Handoff(request, at.tp(),
                        at.event().offset(), at.event().value(), at.event().key(),
                        at.notice().eventId(), group.key(), Math.max(0, attempts), pair.firstFailedAt, wait, reason,
                        suspend)))
                .thenApply(took -> {
                    if (took) {
                        pair.done.add(group.key());
                        pair.ended(Settlement.HANDED_OFF);
                    }
                    return took;
                });
    }

    private CompletableFuture<Void> settle(TopicPartition tp, Event<String, String> event, Notice notice,
                                           String subscriptionId, EventProgress.Pair pair) {
        Settlement end = pair.settlement();
        return ledger.recordAsync(tp, event.offset(), subscriptionId, notice.eventId(), end.status, pair.attempts)
                .thenRun(() -> {
                    pair.moveTo(PairState.SETTLED);
                    if (end == Settlement.DEAD_LETTERED) {
                        summary.deadLettered(subscriptionId);
                    } else if (end == Settlement.DELIVERED) {
                        summary.delivered(subscriptionId, notice.eventId());
                    }
                });
    }

    /**
     * A final failure of the runtime (processing timeout, its attempt limit, an unexpected error): every pair of the
     * event that is not settled goes to the DLQ with source SUBSCRIBER and retriesLeft 0, then to the ledger. The
     * progress is kept until the ledger acked, so when this handler throws (ledger not acked) and is called again, the
     * groups already dead-lettered are not written to the DLQ a second time.
     */
    @Override
    public void onFailure(Event<String, String> event, Failure failure) {
        Notice notice = event.value() == null ? null : parse(event);
        if (notice == null) {
            return;
        }
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        EventProgress progress = inFlight.computeIfAbsent(tp, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(event.offset(), k -> new EventProgress());
        String reason = failure.kind() + ": " + failure.reason();
        List<CompletableFuture<Void>> pairs = new ArrayList<>();
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            org.slf4j.MDC.put("subscriptionId", sub.id());
            EventProgress.Pair known = progress.pairs.get(sub.id());
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if ((known != null && known.settled()) || groups.isEmpty()) {
                continue;
            }
            CompletableFuture<EventProgress.Pair> started = known != null ? CompletableFuture.completedFuture(known)
                    : start(tp, notice, active, groups, isReplay(event)).thenApply(pair -> {
                        progress.pairs.put(sub.id(), pair);
                        if (!pair.settled()) {
                            pair.attempts = failure.attempts();
                        }
                        return pair;
                    });
            pairs.add(started.thenCompose(pair -> {
                if (pair.settled()) {
                    return CompletableFuture.completedFuture(null);
                }
                List<CompletableFuture<Void>> letters = new ArrayList<>();
                for (DestinationGroup group : groups) {
                    if (!pair.done.contains(group.key())) {
                        letters.add(deadLetter(pair, group, sub, notice, reason, true));
                    }
                }
                return CompletableFuture.allOf(letters.toArray(CompletableFuture[]::new))
                        .thenCompose(v -> settle(tp, event, notice, sub.id(), pair));
            }));
        }
        try { // a final failure is rare: the lane waits for its DLQ and ledger acks here
            CompletableFuture.allOf(pairs.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        forget(tp, event.offset());
    }

    private static boolean isReplay(Event<String, String> event) {
        org.apache.kafka.common.header.Header replay = event.headers().lastHeader(REPLAY_SUBSCRIPTION_HEADER);
        return replay != null && replay.value() != null;
    }

    /** Every subscription, or only the one a replayed event names. */
    private List<ActiveSubscription> subscriptionsFor(Event<String, String> event) {
        if (!isReplay(event)) {
            return subscriptions.get();
        }
        String id = new String(event.headers().lastHeader(REPLAY_SUBSCRIPTION_HEADER).value(),
                java.nio.charset.StandardCharsets.UTF_8);
        return subscriptions.get().stream().filter(a -> a.id().equals(id)).toList();
    }

    /** The notice of a record, or null when it is not a readable event. */
    private Notice parse(Event<String, String> event) {
        try {
            return read(event);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Notice read(Event<String, String> event) {
        if (event.topic().equals(settings.pipelineStatusTopic())) {
            return Notice.of(Serdes.pipelineRunStatus().fromJson(event.value()));
        }
        return Notice.of(Serdes.changeEvent().fromJson(event.value()));
    }

    /**
     * Dead-letters a record that is not a readable event: its raw value (the first
     * {@link PipelineSettings#malformedMaxChars()} characters), key, topic, partition, offset and the reason, as a
     * {@link FailedEvent} of subscription {@value #MALFORMED_SUBSCRIPTION} (event type {@code malformed}, id
     * {@code malformed/<topic>/<partition>/<offset>}, source PUBLISHER).
     */
    private CompletableFuture<Void> deadLetterMalformed(Event<String, String> event, RuntimeException error) {
        String raw = event.value();
        boolean truncated = raw.length() > settings.malformedMaxChars();
        ObjectNode entity = Json.mapper().createObjectNode()
                .put("topic", event.topic()).put("partition", event.partition()).put("offset", event.offset())
                .put("key", event.key())
                .put("raw", truncated ? raw.substring(0, settings.malformedMaxChars()) : raw)
                .put("rawChars", raw.length()).put("truncated", truncated);
        String reason = "malformed record at " + event.coordinates() + ": " + error.getMessage();
        ChangeEvent placeholder = new ChangeEvent("malformed/" + event.topic() + "/" + event.partition() + "/"
                + event.offset(), "malformed", "unknown", event.key() == null || event.key().isBlank() ? "unknown"
                : event.key(), null, null, null, null, null, null, clock.millis(),
                null, entity, null);
        LOG.warn("{} is not a readable event; dead-lettered with its raw value: {}", event.coordinates(),
                error.getMessage());
        return deadLetters.writeAsync(new FailedEvent(MALFORMED_SUBSCRIPTION, placeholder, reason,
                FailureSource.PUBLISHER, 0, 0, clock.millis(), null)).thenRun(malformed::increment);
    }

    private void forget(TopicPartition tp, long offset) {
        Map<Long, EventProgress> events = inFlight.get(tp);
        if (events != null) {
            events.remove(offset);
        }
    }

    /**
     * The service stops within {@code timeout} ({@code runtime.closeTimeout}): the releases of its stop wait no
     * longer than that for running deliveries, then cancel them. Any thread, before the runtime is closed.
     */
    public void stopWithin(Duration timeout) {
        releases.stopWithin(timeout);
    }

    /** Has the ledger rebuild the assigned partitions' windows from their committed offsets. Consumer thread. */
    @Override
    public void onAssigned(Map<TopicPartition, Long> committedOffsets) {
        ledger.onAssigned(committedOffsets);
    }

    /**
     * Stops starting deliveries of the released partitions' events, waits (bounded by
     * {@link PipelineSettings#releaseTimeout()}, and by a stop's deadline) for the ones running and cancels what still runs; then drops their
     * progress, and only then has the ledger forget the partitions' windows. Consumer thread.
     */
    @Override
    public void onReleased(Collection<TopicPartition> partitions) {
        releases.release(partitions);
        partitions.forEach(inFlight::remove);
        ledger.onReleased(partitions);
    }

    /** Events with progress kept between attempts (for tests and the status view). */
    public int eventsInFlight() {
        return inFlight.values().stream().mapToInt(Map::size).sum();
    }

    /** The progress of one event between its attempts. */
    static final class EventProgress {
        final Map<String, Pair> pairs = new ConcurrentHashMap<>();
        /** The W3C trace of the event, the same on every attempt. */
        volatile TraceContext trace;

        /** A group's own wait: when it is due, and why it waits. */
        record Wait(Instant due, String reason) {
        }

        /** One (subscription, event) pair: attempts so far, the destination groups done with, where it stands. */
        static final class Pair {
            static final Pair SETTLED = alreadySettled();
            final Set<String> done = ConcurrentHashMap.newKeySet();
            /** At-most-once groups this instance wrote an ATTEMPTING record for. */
            final Set<String> attempted = ConcurrentHashMap.newKeySet();
            volatile int attempts;
            /** Epoch ms of the first inline failure (0: none yet): the inline budget counts from here. */
            volatile long firstFailedAt;
            /** Groups asked to wait (a rate-limit slot, a Retry-After): not tried again before it ends. */
            final Map<String, Wait> notBefore = new ConcurrentHashMap<>();
            private volatile PairState state = PairState.OPEN;
            private volatile Settlement settlement = Settlement.DELIVERED;

            private static Pair alreadySettled() {
                Pair p = new Pair();
                p.state = PairState.SETTLED;
                return p;
            }

            /** Where it stands. */
            PairState state() {
                return state;
            }

            boolean settled() {
                return state == PairState.SETTLED;
            }

            /** Moves to {@code next}; refuses going back ({@link PairState#predecessors()}). */
            synchronized void moveTo(PairState next) {
                if (state == next) {
                    return;
                }
                if (!next.predecessors().contains(state)) {
                    throw new IllegalStateException("pair cannot move from " + state + " to " + next);
                }
                state = next;
            }

            /** How it will settle in the ledger so far. */
            Settlement settlement() {
                return settlement;
            }

            /** A group ended this way: the pair settles as the worst of its groups' ends. */
            synchronized void ended(Settlement end) {
                if (end.rank > settlement.rank) {
                    settlement = end;
                }
            }
        }
    }

    /** Where a pair stands on this instance; a pair only moves forward. */
    enum PairState {
        /** Its destination groups are being delivered, or wait to be tried again. */
        OPEN,
        /** Appended to its digest (issue 13); it settles once the ledger acks. */
        COLLECTED,
        /** Its ledger record is acked (delivered, handed off, dead-lettered or collected): nothing more to do. */
        SETTLED;

        /** The states it may be entered from. */
        Set<PairState> predecessors() {
            return switch (this) {
                case OPEN -> Set.of();
                case COLLECTED -> Set.of(OPEN);
                case SETTLED -> Set.of(OPEN, COLLECTED);
            };
        }
    }

    /** How a pair is recorded in the ledger: the worst of its destination groups' ends. */
    enum Settlement {
        /** Every group delivered. */
        DELIVERED(0, DeliveryRecord.DELIVERED),
        /** Some group went to the retry path ({@link LongRetries#HANDED_OFF}). */
        HANDED_OFF(1, LongRetries.HANDED_OFF),
        /** Some group was dead-lettered. */
        DEAD_LETTERED(2, DeliveryRecord.DEAD_LETTERED);

        private final int rank;
        /** The ledger status. */
        final String status;

        Settlement(int rank, String status) {
            this.rank = rank;
            this.status = status;
        }
    }
}
