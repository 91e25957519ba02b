package io.changestream.alerts.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.lineage.RunEvents;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RetriableException;
import io.changestream.alerts.subscription.ActiveSubscription;
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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alert {@link Processor} and {@link FailureHandler} on the consumer runtime. For each record of {@code changes}
 * (or {@code pipeline-status}) and each enabled subscription: skip the pair when the group's ledger knows it settled
 * (by event id, whatever the offset); evaluate the filter (an evaluation error dead-letters the pair with source
 * PUBLISHER); deliver once per {@link DestinationGroup}, recording each group's progress in the ledger when the
 * subscription has more than one; then settle the pair in the ledger (acked) before the event may be marked done.
 * A record that is not a readable event goes to the DLQ with its raw value (bounded), coordinates and the reason.
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
 * thread waits up to {@link PipelineSettings#releaseTimeout()} for the one running, then cancels it (interrupt), so
 * the partition is never handed over while one of its events is mid-delivery.
 *
 * <p>Called on the runtime's lane threads (one event at a time per lane; an event's attempts may run on the same
 * lane only, so its progress needs no lock beyond the map that holds it). The per-event progress of events in flight
 * is dropped when their partition is released ({@link PartitionListener}).
 */
public final class AlertProcessor implements Processor<String, String>, FailureHandler<String, String>,
        PartitionListener {

    private static final Logger LOG = LoggerFactory.getLogger(AlertProcessor.class);
    /**
     * Header of an event replayed from the DLQ ({@code ops dlq replay}): the id of the one subscription it is meant
     * for; the other subscriptions already had it and skip it.
     */
    public static final String REPLAY_SUBSCRIPTION_HEADER = "cs.replay.subscription";
    /** The DLQ reason of an at-most-once group attempted by a process that crashed before settling it. */
    public static final String UNKNOWN_OUTCOME = "outcome unknown after crash: attempted before, never settled; "
            + "not sent again (at-most-once destination)";
    /** The destination config field choosing the guarantee: {@value #AT_MOST_ONCE} or {@code atLeastOnce}. */
    public static final String DELIVERY_FIELD = "delivery";
    /** The value of {@value #DELIVERY_FIELD} for at-most-once. */
    public static final String AT_MOST_ONCE = "atMostOnce";
    /** The subscription id of dead letters of malformed source records (they belong to no subscription). */
    public static final String MALFORMED_SUBSCRIPTION = "-";

    private final PipelineSettings settings;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final DestinationRegistry destinations;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final DeliveryObserver observer;
    private final DeliverySummary summary;
    private final Clock clock;
    private final Counter malformed;
    private final Counter unknownOutcome;
    private final Releases releases;
    private final Map<TopicPartition, Map<Long, EventProgress>> inFlight = new ConcurrentHashMap<>();
    private volatile LongRetries longRetries = LongRetries.NONE;

    public AlertProcessor(PipelineSettings settings, Supplier<List<ActiveSubscription>> subscriptions,
                          DestinationRegistry destinations, DeliveryLedger ledger, DeadLetterWriter deadLetters,
                          DeliveryObserver observer, DeliverySummary summary, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.subscriptions = subscriptions;
        this.destinations = destinations;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.observer = observer;
        this.summary = summary;
        this.clock = clock;
        this.malformed = Counter.builder("changestream.alert.malformed")
                .description("Source records that could not be read as events (dead-lettered with their raw value)")
                .register(meters);
        this.unknownOutcome = Counter.builder("changestream.alert.unknown.outcomes")
                .description("At-most-once sends attempted before a crash and reported instead of sent again")
                .register(meters);
        this.releases = new Releases(settings.releaseTimeout(), clock, meters);
    }

    /** Hands long waits and suspended destinations to a retry path (decision 1120); before the runtime starts. */
    public void useLongRetries(LongRetries retries) {
        this.longRetries = java.util.Objects.requireNonNull(retries, "retries");
    }

    @Override
    public Outcome process(Event<String, String> event) {
        if (event.value() == null) {
            return Outcome.success();
        }
        Notice notice;
        try {
            notice = read(event);
        } catch (RuntimeException e) {
            deadLetterMalformed(event, e);
            return Outcome.success();
        }
        org.slf4j.MDC.put("eventId", notice.eventId()); // cleared by the runtime after the record (decision 1505)
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        Releases.Call call = releases.enter(tp);
        try {
            return deliver(event, notice, tp, call);
        } finally {
            call.close();
        }
    }

    private Outcome deliver(Event<String, String> event, Notice notice, TopicPartition tp, Releases.Call call) {
        EventProgress progress = inFlight.computeIfAbsent(tp, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(event.offset(), k -> new EventProgress());
        if (progress.trace == null) { // the record's trace, or a new one when it has none; kept across attempts
            org.apache.kafka.common.header.Header header = event.headers().lastHeader(TraceContext.HEADER);
            progress.trace = TraceContext.continueOrStart(header == null ? null : header.value());
        }
        org.slf4j.MDC.put("traceId", progress.trace.traceId()); // cleared by the runtime, like eventId
        boolean replay = isReplay(event);
        Duration retryAfter = null;
        String retryReason = null;
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            org.slf4j.MDC.put("subscriptionId", sub.id());
            EventProgress.Pair pair = progress.pairs.get(sub.id());
            if (pair != null && pair.settled) {
                continue;
            }
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if (groups.isEmpty()) {
                continue;
            }
            if (pair == null) {
                pair = start(tp, notice, active, groups, replay);
                progress.pairs.put(sub.id(), pair);
                if (pair.settled) {
                    continue;
                }
            }
            pair.attempts++;
            boolean sent = false; // an attempt held back entirely by rate limits is not counted against retries
            boolean held = false;
            for (DestinationGroup group : groups) {
                if (pair.done.contains(group.key())) {
                    continue;
                }
                call.requireOwned();
                if (atMostOnce(group) && pair.attempted.add(group.key())) {
                    ledger.recordGroup(tp, event.offset(), sub.id(), notice.eventId(), group.key(),
                            LedgerRecords.ATTEMPTING);
                }
                io.changestream.alerts.destination.DeliveryRequest request = notice.request(sub,
                        group.destination(), pair.attempts, progress.trace);
                Optional<String> parked = longRetries.parkReason(request); // suspended or backlogged: park it
                if (parked.isPresent() && handOff(tp, event, notice, pair, group, request, pair.attempts - 1,
                        Duration.ZERO, parked.get(), false)) {
                    held = true;
                    continue;
                }
                DeliveryResult result = destinations.deliver(request);
                LOG.debug("{} of subscription {} to {}: {}", notice.eventId(), sub.id(), group.key(), result.outcome());
                sent |= !result.throttled();
                held |= result.throttled();
                switch (result.outcome()) {
                    case DELIVERED -> {
                        pair.done.add(group.key());
                        group.memberIds().forEach(id -> observer.delivered(sub.id(), id));
                        if (pair.done.size() < groups.size()) {
                            // progress per destination group: a crash before the pair settles re-sends only the rest
                            ledger.recordGroup(tp, event.offset(), sub.id(), notice.eventId(), group.key(),
                                    DeliveryRecord.DELIVERED);
                        }
                    }
                    case PERMANENT -> {
                        if (!longRetries.suspends(result) || !handOff(tp, event, notice, pair, group, request,
                                pair.attempts, Duration.ZERO, result.reason(), true)) {
                            deadLetter(pair, group, sub, notice, result.reason(), false);
                        }
                    }
                    case RETRY -> {
                        if (!result.throttled() && pair.attempts > sub.retries()) {
                            deadLetter(pair, group, sub, notice, "retries exhausted (" + sub.retries()
                                    + "): " + result.reason(), true);
                        } else {
                            Duration wait = result.retryAfter() != null ? result.retryAfter()
                                    : settings.backoffAfter(event.attempt());
                            if (pair.firstFailedAt == 0) {
                                pair.firstFailedAt = clock.millis();
                            }
                            if (longRetries.exceedsBudget(Duration.ofMillis(clock.millis() - pair.firstFailedAt), wait)
                                    && !atMostOnce(group) && handOff(tp, event, notice, pair, group, request,
                                    pair.attempts - (result.throttled() ? 1 : 0), wait, result.reason(), false)) {
                                continue; // past the inline budget: the retry path has it, the offset commits on
                            }
                            group.memberIds().forEach(id -> observer.failed(sub.id(), id, result.reason(),
                                    clock.instant().plus(wait)));
                            if (result.retryAfter() != null
                                    && (retryAfter == null || result.retryAfter().compareTo(retryAfter) > 0)) {
                                retryAfter = result.retryAfter();
                            }
                            retryReason = result.reason();
                        }
                    }
                }
            }
            if (held && !sent) {
                pair.attempts--; // nothing went out: every group waited for its slot
            }
            Set<String> done = pair.done;
            if (groups.stream().allMatch(g -> done.contains(g.key()))) {
                settle(tp, event, notice, sub.id(), pair);
            }
        }
        if (retryReason != null) {
            if (retryAfter != null) {
                return Outcome.retryAfter(retryAfter, retryReason);
            }
            throw new RetriableException(retryReason);
        }
        forget(tp, event.offset());
        return Outcome.success();
    }

    /**
     * The first look at a pair on this instance: settled already (by any instance of the group, at any offset) →
     * nothing to do; a dead-lettered pair is tried again only when the event is a DLQ replay for it. Otherwise the
     * groups the ledger knows as delivered are done, and an at-most-once group attempted before (by a process that
     * then crashed) is reported, not sent again.
     */
    private EventProgress.Pair start(TopicPartition tp, Notice notice, ActiveSubscription active,
                                     List<DestinationGroup> groups, boolean replay) {
        EventSubscription sub = active.subscription();
        DeliveryLedger.Known known = ledger.known(tp, sub.id(), notice.eventId());
        Optional<String> status = known.status();
        if (status.isPresent() && (!replay || DeliveryRecord.DELIVERED.equals(status.get()))) {
            return EventProgress.Pair.SETTLED;
        }
        Match match = match(notice, active);
        if (match == Match.NOT_WANTED) {
            return EventProgress.Pair.SETTLED;
        }
        EventProgress.Pair pair = new EventProgress.Pair();
        if (match == Match.DEAD_LETTERED) {
            // the DLQ has it; the ledger record follows in settle(), retried without writing the DLQ again
            groups.forEach(g -> pair.done.add(g.key()));
            pair.deadLettered = true;
            return pair;
        }
        for (DestinationGroup group : groups) {
            if (known.deliveredGroups().contains(group.key())) {
                pair.done.add(group.key());
            } else if (!replay && known.attemptedGroups().contains(group.key()) && atMostOnce(group)) {
                unknownOutcome.increment();
                deadLetter(pair, group, sub, notice, UNKNOWN_OUTCOME, false);
            }
        }
        return pair;
    }

    /** Whether a destination group is sent at most once: its {@code config.delivery}, else the service default. */
    private boolean atMostOnce(DestinationGroup group) {
        JsonNode config = group.destination().config();
        String choice = config == null ? "" : config.path(DELIVERY_FIELD).asText("");
        if (AT_MOST_ONCE.equalsIgnoreCase(choice)) {
            return true;
        }
        if ("atLeastOnce".equalsIgnoreCase(choice)) {
            return false;
        }
        return settings.atMostOnceTypes().contains(group.destination().type());
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

    /** Whether the subscription wants the notice; an evaluation error dead-letters the pair (PUBLISHER). */
    private Match match(Notice notice, ActiveSubscription active) {
        try {
            return active.matches(notice.isRunStatus() ? RunEvents.filterable(notice.run()) : notice.change())
                    ? Match.WANTED : Match.NOT_WANTED;
        } catch (RuntimeException e) {
            EventSubscription sub = active.subscription();
            String reason = "filter evaluation failed: " + e.getMessage();
            deadLetters.write(new FailedEvent(sub.id(), notice.asChangeEvent(), reason, FailureSource.PUBLISHER,
                    sub.retries(), 0, clock.millis(), null));
            DestinationGroup.of(sub, false).forEach(g -> g.memberIds()
                    .forEach(id -> observer.deadLettered(sub.id(), id, reason, false)));
            return Match.DEAD_LETTERED;
        }
    }

    private void deadLetter(EventProgress.Pair pair, DestinationGroup group, EventSubscription sub, Notice notice,
                            String reason, boolean exhausted) {
        int retriesLeft = exhausted ? 0 : Math.max(0, sub.retries() - (pair.attempts - 1));
        deadLetters.write(new FailedEvent(sub.id(), notice.asChangeEvent(), reason, FailureSource.SUBSCRIBER,
                retriesLeft, pair.attempts, clock.millis(), group.memberIds().get(0)));
        pair.done.add(group.key());
        pair.deadLettered = true;
        group.memberIds().forEach(id -> observer.deadLettered(sub.id(), id, reason, exhausted));
    }

    /** Hands one group to the retry path; true when it took it (the group is done here). */
    private boolean handOff(TopicPartition tp, Event<String, String> event, Notice notice, EventProgress.Pair pair,
                            DestinationGroup group, io.changestream.alerts.destination.DeliveryRequest request,
                            int attempts, Duration wait, String reason, boolean suspend) {
        if (!longRetries.handOff(new LongRetries.Handoff(request, tp, event.offset(), event.value(), notice.eventId(),
                group.key(), Math.max(0, attempts), pair.firstFailedAt, wait, reason, suspend))) {
            return false;
        }
        pair.done.add(group.key());
        pair.handedOff = true;
        return true;
    }

    private void settle(TopicPartition tp, Event<String, String> event, Notice notice, String subscriptionId,
                        EventProgress.Pair pair) {
        ledger.record(tp, event.offset(), subscriptionId, notice.eventId(), pair.deadLettered
                ? DeliveryRecord.DEAD_LETTERED : pair.handedOff ? LongRetries.HANDED_OFF : DeliveryRecord.DELIVERED,
                pair.attempts);
        pair.settled = true;
        if (pair.deadLettered) {
            summary.deadLettered(subscriptionId);
        } else if (!pair.handedOff) {
            summary.delivered(subscriptionId, notice.eventId());
        }
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
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            org.slf4j.MDC.put("subscriptionId", sub.id());
            EventProgress.Pair pair = progress.pairs.get(sub.id());
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if ((pair != null && pair.settled) || groups.isEmpty()) {
                continue;
            }
            if (pair == null) {
                pair = start(tp, notice, active, groups, isReplay(event));
                progress.pairs.put(sub.id(), pair);
                if (pair.settled) {
                    continue;
                }
                pair.attempts = failure.attempts();
            }
            for (DestinationGroup group : groups) {
                if (!pair.done.contains(group.key())) {
                    deadLetter(pair, group, sub, notice, reason, true);
                }
            }
            settle(tp, event, notice, sub.id(), pair);
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
    private void deadLetterMalformed(Event<String, String> event, RuntimeException error) {
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
        deadLetters.write(new FailedEvent(MALFORMED_SUBSCRIPTION, placeholder, reason, FailureSource.PUBLISHER, 0, 0,
                clock.millis(), null));
        malformed.increment();
        LOG.warn("{} is not a readable event; dead-lettered with its raw value: {}", event.coordinates(),
                error.getMessage());
    }

    private void forget(TopicPartition tp, long offset) {
        Map<Long, EventProgress> events = inFlight.get(tp);
        if (events != null) {
            events.remove(offset);
        }
    }

    /**
     * Stops starting deliveries of the released partitions' events, waits (bounded by
     * {@link PipelineSettings#releaseTimeout()}) for the ones running and cancels what still runs; then drops their
     * progress. Consumer thread, before the ledger forgets the partitions' windows.
     */
    @Override
    public void onReleased(Collection<TopicPartition> partitions) {
        releases.release(partitions);
        partitions.forEach(inFlight::remove);
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

        /** One (subscription, event) pair: attempts so far and the destination groups done with. */
        static final class Pair {
            static final Pair SETTLED = settled();
            final Set<String> done = ConcurrentHashMap.newKeySet();
            /** At-most-once groups this instance wrote an ATTEMPTING record for. */
            final Set<String> attempted = ConcurrentHashMap.newKeySet();
            volatile int attempts;
            /** Epoch ms of the first inline failure (0: none yet): the inline budget counts from here. */
            volatile long firstFailedAt;
            /** Some group went to the retry path; the pair settles as {@link LongRetries#HANDED_OFF}. */
            volatile boolean handedOff;
            volatile boolean deadLettered;
            volatile boolean settled;

            private static Pair settled() {
                Pair p = new Pair();
                p.settled = true;
                return p;
            }
        }
    }
}
