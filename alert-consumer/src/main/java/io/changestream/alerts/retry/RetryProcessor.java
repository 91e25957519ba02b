package io.changestream.alerts.retry;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.pipeline.AlertProcessor;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Outcome;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RetriableException;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import io.changestream.topics.trace.TraceContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry path's consumer side (decision 1120): a {@link Processor} on its own consumer runtime over
 * {@code alert-retry} (group {@code <group>-retry}, key = destination, so one destination's records are tried in
 * order, and a waiting head holds the destination's later records behind it, nobody else's). Per record: a
 * destination that is suspended parks it (looked at again every {@code retry.recheckInterval}); before its
 * {@code notBefore} it waits (a resume cuts the wait short); else it is delivered. Delivered or dead-lettered, the
 * pair is settled in the ledger like on the main path (so a repeat of the event is skipped), then the destination's
 * progress is recorded ({@link DestinationStates#drained}). A 410 suspends the destination and parks the record; so
 * do {@code retry.suspendAfterFailures} consecutive failures or {@code retry.suspendAfterDuration} of failing; a
 * subscription's {@code retries} running out dead-letters it, and so does a request of an at-most-once destination
 * that got no answer (it may have arrived: it is not sent again). A record already settled here (a second hand-off
 * after a crash) is settled once. Lane threads of the retry runtime.
 *
 * <p>Meters: {@code changestream_alert_retry_settled_total{result}}, {@code changestream_alert_retry_held} (records
 * taken in and not settled), {@code changestream_alert_retry_oldest_age_seconds}.
 */
final class RetryProcessor implements Processor<String, String>, FailureHandler<String, String>, PartitionListener {

    private static final Logger LOG = LoggerFactory.getLogger(RetryProcessor.class);

    private final RetrySettings settings;
    private final DestinationStates states;
    private final RetryPath path;
    private final DestinationRegistry destinations;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final String pipelineStatusTopic;
    private final Set<io.changestream.topics.model.SubscriptionType> atMostOnceTypes;
    private final Clock clock;
    private final Map<TopicPartition, Map<Long, Progress>> held = new ConcurrentHashMap<>();
    /** Calls running per owned partition; a released partition is absent (no new call starts). */
    private final Map<TopicPartition, AtomicInteger> running = new ConcurrentHashMap<>();
    private final Map<String, Streak> streaks = new ConcurrentHashMap<>();
    private final Set<String> settled;
    private final MeterRegistry meters;

    /** One record between its tries. */
    private static final class Progress {
        final long handedOffAt;
        volatile int attempts;
        volatile long notBefore;
        /** When the current wait was set: a resume after it cuts the wait short. */
        volatile long waitSetAt;
        volatile boolean delivered;

        Progress(RetryRecord r) {
            this.handedOffAt = r.handedOffAt();
            this.attempts = r.attempts();
            this.notBefore = r.notBefore();
            this.waitSetAt = r.handedOffAt();
        }
    }

    /** Consecutive failures of one destination in the retry path. */
    private record Streak(int failures, long since) {
    }

    RetryProcessor(RetrySettings settings, DestinationStates states, RetryPath path, DestinationRegistry destinations,
                   DeliveryLedger ledger, DeadLetterWriter deadLetters,
                   Supplier<List<ActiveSubscription>> subscriptions, PipelineSettings pipeline, MeterRegistry meters,
                   Clock clock) {
        this.settings = settings;
        this.states = states;
        this.path = path;
        this.destinations = destinations;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.subscriptions = subscriptions;
        this.pipelineStatusTopic = pipeline.pipelineStatusTopic();
        this.atMostOnceTypes = pipeline.atMostOnceTypes();
        this.meters = meters;
        this.clock = clock;
        int max = settings.dedupeEntries();
        this.settled = Collections.synchronizedSet(Collections.newSetFromMap(new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > max;
            }
        }));
        Gauge.builder("changestream.alert.retry.held", held, h -> h.values().stream().mapToInt(Map::size).sum())
                .description("Retry-path records this instance took in and has not settled (waiting or parked heads)")
                .register(meters);
        Gauge.builder("changestream.alert.retry.oldest.age", this, RetryProcessor::oldestAgeSeconds)
                .baseUnit("seconds")
                .description("Age of the oldest retry-path record this instance holds, since its hand-off")
                .register(meters);
    }

    private double oldestAgeSeconds() {
        long oldest = held.values().stream().flatMap(m -> m.values().stream()).mapToLong(p -> p.handedOffAt).min()
                .orElse(clock.millis());
        return Math.max(0, clock.millis() - oldest) / 1000.0;
    }

    @Override
    public Outcome process(Event<String, String> event) {
        if (event.value() == null) {
            return Outcome.success();
        }
        RetryRecord r;
        try {
            r = RetryRecord.fromJson(event.value());
        } catch (IllegalArgumentException e) {
            LOG.error("unreadable retry record at {} skipped: {}", event.coordinates(), e.getMessage());
            count("unreadable");
            return Outcome.success();
        }
        if (!settings.groupId().equals(r.groupId())) {
            return Outcome.success(); // another group's hand-off on a shared topic
        }
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        AtomicInteger calls = running.get(tp);
        if (calls == null) {
            return wait(settings.recheckInterval().toMillis(), "partition released"); // dropped with it
        }
        calls.incrementAndGet();
        try {
            if (running.get(tp) != calls) {
                return wait(settings.recheckInterval().toMillis(), "partition released");
            }
            Progress p = held.computeIfAbsent(tp, k -> new ConcurrentHashMap<>()).computeIfAbsent(event.offset(),
                    k -> new Progress(r));
            return attempt(event, r, tp, p);
        } catch (RetriableException e) {
            LOG.warn("retry record {} of {}: {}; tried again in {}", event.coordinates(), r.destination(),
                    e.getMessage(), settings.recheckInterval());
            return wait(settings.recheckInterval().toMillis(), "not acked: " + e.getMessage());
        } finally {
            calls.decrementAndGet();
        }
    }

    private Outcome attempt(Event<String, String> event, RetryRecord r, TopicPartition tp, Progress p) {
        long now = clock.millis();
        if (!p.delivered && (settled.contains(r.settlementKey())
                || event.offset() <= states.of(r.destination()).drained())) {
            return done(tp, event, r, "duplicate"); // settled here, or by the partition's previous owner
        }
        Optional<String> suspended = states.suspension(r.destination());
        if (suspended.isPresent()) {
            return wait(settings.recheckInterval().toMillis(), "destination suspended: " + suspended.get());
        }
        boolean resumed = states.of(r.destination()).resumedAt() > p.waitSetAt;
        if (resumed) {
            p.notBefore = 0; // resumed by hand: try now
            p.waitSetAt = now;
        }
        if (p.delivered) {
            return settle(tp, event, r, p, DeliveryRecord.DELIVERED, "delivered");
        }
        if (now < p.notBefore) {
            return wait(Math.min(p.notBefore - now, settings.recheckInterval().toMillis()), r.reason());
        }
        Optional<Target> target = target(r);
        if (target.isEmpty()) {
            LOG.info("retry record {}: subscription {} or its destination group {} is gone; nothing to deliver",
                    event.coordinates(), r.subscriptionId(), r.groupKey());
            return done(tp, event, r, "gone");
        }
        EventSubscription sub = target.get().subscription();
        int attempt = p.attempts + 1;
        DeliveryRequest request = request(r, target.get(), attempt);
        if (resumed) {
            destinations.resume(request); // a receiver's Retry-After pause ends with the resume
        }
        DeliveryResult result = destinations.deliver(request);
        switch (result.outcome()) {
            case DELIVERED -> {
                streaks.remove(r.destination());
                p.attempts = attempt;
                p.delivered = true;
                return settle(tp, event, r, p, DeliveryRecord.DELIVERED, "delivered");
            }
            case PERMANENT -> {
                if (path.suspends(result)) {
                    states.suspend(r.destination(), result.reason(), "receiver");
                    LOG.warn("destination {} suspended: {}; its retry-path records are parked until resumed",
                            r.destination(), result.reason());
                    return wait(settings.recheckInterval().toMillis(), result.reason());
                }
                p.attempts = attempt;
                deadLetter(r, target.get(), result.reason(), attempt, Math.max(0, sub.retries() - (attempt - 1)));
                return settle(tp, event, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
            }
            default -> {
                if (result.unanswered() && target.get().group().atMostOnce(atMostOnceTypes)) {
                    // the request may have arrived: an at-most-once pair is not sent again (decision 1111)
                    p.attempts = attempt;
                    deadLetter(r, target.get(), AlertProcessor.UNANSWERED + result.reason(), attempt, 0);
                    return settle(tp, event, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
                }
                if (!result.throttled()) {
                    p.attempts = attempt;
                    if (attempt > sub.retries()) {
                        deadLetter(r, target.get(), "retries exhausted (" + sub.retries() + "): " + result.reason(),
                                attempt, 0);
                        return settle(tp, event, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
                    }
                    failed(r.destination(), result.reason(), now);
                }
                long wait = result.retryAfter() != null ? result.retryAfter().toMillis()
                        : settings.backoffAfter(p.attempts).toMillis();
                p.notBefore = now + wait;
                p.waitSetAt = now;
                return wait(Math.min(wait, settings.recheckInterval().toMillis()), result.reason());
            }
        }
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

    private Outcome wait(long millis, String reason) {
        return Outcome.deferUntil(clock.instant().plusMillis(Math.max(1, millis)), reason == null ? "waiting" : reason);
    }

    /** Settles the pair in the ledger, records the destination's progress, forgets the record. */
    private Outcome settle(TopicPartition tp, Event<String, String> event, RetryRecord r, Progress p, String status,
                           String result) {
        ledger.record(new TopicPartition(r.sourceTopic(), r.sourcePartition()), r.sourceOffset(), r.subscriptionId(),
                r.eventId(), status, p.attempts);
        return done(tp, event, r, result);
    }

    private Outcome done(TopicPartition tp, Event<String, String> event, RetryRecord r, String result) {
        settled.add(r.settlementKey());
        states.drained(r.destination(), event.offset());
        Map<Long, Progress> m = held.get(tp);
        if (m != null) {
            m.remove(event.offset());
        }
        count(result);
        return Outcome.success();
    }

    private void count(String result) {
        Counter.builder("changestream.alert.retry.settled").tag("result", result)
                .description("Retry-path records settled, by result (delivered, deadLettered, duplicate: a second "
                        + "hand-off of a settled pair, gone: subscription or destination deleted, unreadable)")
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
        deadLetters.write(new FailedEvent(r.subscriptionId(), dlqEvent(r, t), reason, FailureSource.SUBSCRIBER,
                retriesLeft, attempts, clock.millis(), t.group().memberIds().get(0)));
    }

    /** The change event a dead letter carries; a run status as the main path shows it. */
    private static ChangeEvent dlqEvent(RetryRecord r, Target t) {
        if (t.change() != null) {
            return t.change();
        }
        PipelineRunStatus run = t.run();
        return new ChangeEvent(r.eventId(), "pipelineStatus", "ingestionPipeline", run.pipelineFqn(), null,
                run.pipelineFqn(), null, null, null, null, run.timestamp(), null, Json.mapper().valueToTree(run),
                null);
    }

    /**
     * A final failure of the retry runtime (processing timeout, an unexpected error): the pair is dead-lettered and
     * settled, never dropped.
     */
    @Override
    public void onFailure(Event<String, String> event, Failure failure) {
        if (event.value() == null) {
            return;
        }
        RetryRecord r;
        try {
            r = RetryRecord.fromJson(event.value());
        } catch (IllegalArgumentException e) {
            return;
        }
        TopicPartition tp = new TopicPartition(event.topic(), event.partition());
        Progress p = held.computeIfAbsent(tp, k -> new ConcurrentHashMap<>()).computeIfAbsent(event.offset(),
                k -> new Progress(r));
        if (p.delivered) {
            settle(tp, event, r, p, DeliveryRecord.DELIVERED, "delivered");
            return;
        }
        Optional<Target> target = target(r);
        if (target.isEmpty()) {
            done(tp, event, r, "gone");
            return;
        }
        deadLetter(r, target.get(), failure.kind() + ": " + failure.reason(), p.attempts, 0);
        settle(tp, event, r, p, DeliveryRecord.DEAD_LETTERED, "deadLettered");
    }

    /** Before the partitions' records are taken in: the destination states are read up to now. */
    @Override
    public void onAssigned(Map<TopicPartition, Long> committedOffsets) {
        states.awaitCurrent();
        committedOffsets.keySet().forEach(tp -> running.put(tp, new AtomicInteger()));
    }

    /**
     * No new call starts for the released partitions; waits (bounded by {@code retry.stateCatchUp}) for the running
     * ones, then publishes the progress at once, so the next owner skips what was settled here.
     */
    @Override
    public void onReleased(Collection<TopicPartition> partitions) {
        List<AtomicInteger> gone = partitions.stream().map(running::remove)
                .filter(Objects::nonNull).toList();
        long deadline = System.nanoTime() + settings.stateCatchUp().toNanos();
        while (gone.stream().anyMatch(c -> c.get() > 0) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000);
        }
        partitions.forEach(held::remove);
        states.publishNow();
    }
}
