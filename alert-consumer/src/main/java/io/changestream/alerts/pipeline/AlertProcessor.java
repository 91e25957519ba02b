package io.changestream.alerts.pipeline;

import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RetriableException;
import io.changestream.alerts.subscription.ActiveSubscription;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alert {@link Processor} and {@link FailureHandler} on the consumer runtime. For each record of {@code changes}
 * (or {@code pipeline-status}) and each enabled subscription: skip the pair when the ledger window holds it; evaluate
 * the filter (an evaluation error dead-letters the pair with source PUBLISHER); deliver once per
 * {@link DestinationGroup}; then settle the pair in the ledger (acked) before the event may be marked done.
 *
 * <p>Destination outcomes: delivered → done; retry → the event is retried (after the receiver's Retry-After when
 * given, else the runtime's backoff) and only the groups not yet delivered are tried again; permanent → DLQ with
 * source SUBSCRIBER; more retries than the subscription's {@code retries} → DLQ with {@code retriesLeft} 0. A final
 * failure of the runtime (timeout, its own attempt limit) dead-letters every pair not yet settled.
 *
 * <p>An event replayed from the DLQ carries {@value #REPLAY_SUBSCRIPTION_HEADER} and is delivered to that
 * subscription only.
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

    private final PipelineSettings settings;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final DestinationRegistry destinations;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final DeliveryObserver observer;
    private final DeliverySummary summary;
    private final Clock clock;
    private final Counter malformed;
    private final Map<TopicPartition, Map<Long, EventProgress>> inFlight = new ConcurrentHashMap<>();

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
                .description("Source records that could not be read as events and were skipped").register(meters);
    }

    @Override
    public Outcome process(Event<String, String> event) {
        if (event.value() == null) {
            return Outcome.success();
        }
        Notice notice = parse(event);
        if (notice == null) {
            return Outcome.success();
        }
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        EventProgress progress = inFlight.computeIfAbsent(tp, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(event.offset(), k -> new EventProgress());
        Duration retryAfter = null;
        String retryReason = null;
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            EventProgress.Pair pair = progress.pairs.get(sub.id());
            if (pair != null && pair.settled) {
                continue;
            }
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if (groups.isEmpty()) {
                continue;
            }
            if (pair == null) {
                if (ledger.settled(tp, sub.id(), notice.eventId()).isPresent() || !wanted(tp, event, notice, active)) {
                    progress.pairs.put(sub.id(), EventProgress.Pair.SETTLED);
                    continue;
                }
                pair = new EventProgress.Pair();
                progress.pairs.put(sub.id(), pair);
            }
            pair.attempts++;
            for (DestinationGroup group : groups) {
                if (pair.done.contains(group.key())) {
                    continue;
                }
                DeliveryResult result = destinations.deliver(notice.request(sub, group.destination(), pair.attempts));
                switch (result.outcome()) {
                    case DELIVERED -> {
                        pair.done.add(group.key());
                        group.memberIds().forEach(id -> observer.delivered(sub.id(), id));
                    }
                    case PERMANENT -> deadLetter(pair, group, sub, notice, result.reason(), false);
                    case RETRY -> {
                        if (pair.attempts > sub.retries()) {
                            deadLetter(pair, group, sub, notice, "retries exhausted (" + sub.retries()
                                    + "): " + result.reason(), true);
                        } else {
                            Duration wait = result.retryAfter() != null ? result.retryAfter()
                                    : settings.backoffAfter(event.attempt());
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

    /** Whether the subscription wants the notice; an evaluation error dead-letters the pair (PUBLISHER). */
    private boolean wanted(TopicPartition tp, Event<String, String> event, Notice notice, ActiveSubscription active) {
        if (notice.isRunStatus()) {
            return true;
        }
        try {
            return active.matches(notice.change());
        } catch (RuntimeException e) {
            EventSubscription sub = active.subscription();
            String reason = "filter evaluation failed: " + e.getMessage();
            deadLetters.write(new FailedEvent(sub.id(), notice.asChangeEvent(), reason, FailureSource.PUBLISHER,
                    sub.retries(), 0, clock.millis(), null));
            DestinationGroup.of(sub, false).forEach(g -> g.memberIds()
                    .forEach(id -> observer.deadLettered(sub.id(), id, reason, false)));
            summary.deadLettered(sub.id());
            ledger.record(tp, event.offset(), sub.id(), notice.eventId(), DeliveryRecord.DEAD_LETTERED, 0);
            return false;
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

    private void settle(TopicPartition tp, Event<String, String> event, Notice notice, String subscriptionId,
                        EventProgress.Pair pair) {
        ledger.record(tp, event.offset(), subscriptionId, notice.eventId(),
                pair.deadLettered ? DeliveryRecord.DEAD_LETTERED : DeliveryRecord.DELIVERED, pair.attempts);
        pair.settled = true;
        if (pair.deadLettered) {
            summary.deadLettered(subscriptionId);
        } else {
            summary.delivered(subscriptionId, notice.eventId());
        }
    }

    /**
     * A final failure of the runtime (processing timeout, its attempt limit, an unexpected error): every pair of the
     * event that is not settled goes to the DLQ with source SUBSCRIBER and retriesLeft 0, then to the ledger.
     */
    @Override
    public void onFailure(Event<String, String> event, Failure failure) {
        Notice notice = event.value() == null ? null : parse(event);
        if (notice == null) {
            return;
        }
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        EventProgress progress = inFlight.getOrDefault(tp, Map.of()).getOrDefault(event.offset(),
                new EventProgress());
        String reason = failure.kind() + ": " + failure.reason();
        for (ActiveSubscription active : subscriptionsFor(event)) {
            EventSubscription sub = active.subscription();
            EventProgress.Pair pair = progress.pairs.get(sub.id());
            List<DestinationGroup> groups = DestinationGroup.of(sub, notice.isRunStatus());
            if ((pair != null && pair.settled) || groups.isEmpty()) {
                continue;
            }
            if (pair == null) {
                if (ledger.settled(tp, sub.id(), notice.eventId()).isPresent() || !wanted(tp, event, notice, active)) {
                    continue;
                }
                pair = new EventProgress.Pair();
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

    /** Every subscription, or only the one a replayed event names. */
    private List<ActiveSubscription> subscriptionsFor(Event<String, String> event) {
        org.apache.kafka.common.header.Header replay = event.headers().lastHeader(REPLAY_SUBSCRIPTION_HEADER);
        if (replay == null || replay.value() == null) {
            return subscriptions.get();
        }
        String id = new String(replay.value(), java.nio.charset.StandardCharsets.UTF_8);
        return subscriptions.get().stream().filter(a -> a.id().equals(id)).toList();
    }

    private Notice parse(Event<String, String> event) {
        try {
            if (event.topic().equals(settings.pipelineStatusTopic())) {
                return Notice.of(Serdes.pipelineRunStatus().fromJson(event.value()));
            }
            return Notice.of(Serdes.changeEvent().fromJson(event.value()));
        } catch (RuntimeException e) {
            malformed.increment();
            LOG.warn("{} is not a readable event and is skipped (it stays on the topic): {}", event.coordinates(),
                    e.getMessage());
            return null;
        }
    }

    private void forget(TopicPartition tp, long offset) {
        Map<Long, EventProgress> events = inFlight.get(tp);
        if (events != null) {
            events.remove(offset);
        }
    }

    @Override
    public void onReleased(Collection<TopicPartition> partitions) {
        partitions.forEach(inFlight::remove);
    }

    /** Events with progress kept between attempts (for tests and the status view). */
    public int eventsInFlight() {
        return inFlight.values().stream().mapToInt(Map::size).sum();
    }

    /** The progress of one event between its attempts. */
    static final class EventProgress {
        final Map<String, Pair> pairs = new ConcurrentHashMap<>();

        /** One (subscription, event) pair: attempts so far and the destination groups done with. */
        static final class Pair {
            static final Pair SETTLED = settled();
            final Set<String> done = ConcurrentHashMap.newKeySet();
            volatile int attempts;
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
