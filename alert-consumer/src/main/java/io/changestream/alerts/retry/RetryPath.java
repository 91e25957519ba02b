package io.changestream.alerts.retry;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.limits.CircuitBreakingDestination;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.alerts.pipeline.LongRetries;
import io.changestream.runtime.RetryLaterException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main path's side of the retry path (decision 1120): {@link LongRetries} for {@code AlertProcessor}. A hand-off
 * is one acked record on {@code alert-retry}, keyed and partitioned by destination, so one destination's pairs keep
 * their order there. Before a destination is called, {@link #parkReason} parks the pair when the destination is
 * suspended (group-wide), when a pair of the same entity this instance handed off is not settled by the retry path
 * yet (a send now could overtake it; other entities go on — decision 2202), or when the destination's partition held
 * unsettled records at this instance's latest source assignment (pairs a previous owner handed off, whose entities
 * this instance cannot know) until the retry path settles one of its records past them. A {@code 410 Gone} suspends
 * the destination (an acked write to {@code alert-destinations}) before the pair is handed off. Thread-safe.
 *
 * <p>Meters: {@code changestream_alert_retry_handoffs_total{reason}} (wait, parked, gone),
 * {@code changestream_alert_retry_oversize_total}.
 */
public final class RetryPath implements LongRetries {

    private static final Logger LOG = LoggerFactory.getLogger(RetryPath.class);
    private static final int REASON_CHARS = 500;

    private final RetrySettings settings;
    private final Producer<String, String> producer;
    private final DestinationStates states;
    private final Clock clock;
    /** Per destination that had a hand-off here, this instance's hand-offs not known settled yet. */
    private final Map<String, Backlog> backlogs = new ConcurrentHashMap<>();
    /**
     * Per {@code alert-retry} partition, the highest offset not settled by the retry group at this instance's start
     * or latest source assignment (absent: none).
     */
    private volatile Map<Integer, Long> pending;
    private volatile CompletableFuture<Void> caughtUp = CompletableFuture.completedFuture(null);
    private final Counter waits;
    private final Counter parks;
    private final Counter gones;
    private final Counter oversize;

    /** Where this instance handed off a destination's pair. */
    private record Handed(int partition, long offset) {
    }

    /**
     * One destination's hand-offs by this instance: the newest per {@code alert-retry} partition, and per entity
     * (source key) the newest, at most {@code retry.maxParkedKeysPerDestination} of them; past that bound the
     * destination is {@code overflowed} and every pair parks until the newest are settled. Read without a lock (every
     * pair's park check reads it); changed under its own monitor (hand-offs, and a reset once all are settled).
     */
    private static final class Backlog {
        final Map<Integer, Long> newest = new ConcurrentHashMap<>();
        final Map<String, Handed> byKey = new ConcurrentHashMap<>();
        volatile boolean overflowed;
        /** A hand-off without a key (none could be tracked per entity): park all until the newest are settled. */
        volatile boolean unkeyed;

        /** Whether every hand-off is known settled. */
        boolean settled(DestinationStates.State s) {
            for (Map.Entry<Integer, Long> e : newest.entrySet()) {
                if (!s.settled(e.getKey(), e.getValue())) {
                    return false;
                }
            }
            return true;
        }

        /** Whether the whole destination parks: past the bound or unkeyed, and not all settled (then reset). */
        boolean parksAll(DestinationStates.State s) {
            if (!overflowed && !unkeyed) {
                return false;
            }
            synchronized (this) {
                if (!settled(s)) {
                    return true;
                }
                newest.clear();
                byKey.clear();
                overflowed = false;
                unkeyed = false;
                return false;
            }
        }

        synchronized void add(String key, Handed h, int maxKeys, DestinationStates.State s) {
            newest.merge(h.partition(), h.offset(), Math::max);
            if (key == null) {
                unkeyed = true;
                return;
            }
            if (!byKey.containsKey(key) && byKey.size() >= maxKeys) {
                byKey.values().removeIf(k -> s.settled(k.partition(), k.offset()));
                if (byKey.size() >= maxKeys) {
                    overflowed = true;
                    return;
                }
            }
            byKey.merge(key, h, (x, y) -> x.partition() == y.partition() && x.offset() > y.offset() ? x : y);
        }
    }

    /**
     * @param pendingAtStart per {@code alert-retry} partition, the highest offset not settled by the retry group when
     *                       this instance started (absent: none): its destinations are treated as backlogged until
     *                       the retry path settles one of their records past it ({@link #catchUp} replaces it on
     *                       each source assignment)
     */
    RetryPath(RetrySettings settings, Producer<String, String> producer, DestinationStates states,
              Map<Integer, Long> pendingAtStart, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.states = states;
        this.pending = Map.copyOf(pendingAtStart);
        this.clock = clock;
        this.waits = handoffs(meters, "wait");
        this.parks = handoffs(meters, "parked");
        this.gones = handoffs(meters, "gone");
        this.oversize = AlertMeter.RETRY_OVERSIZE.counter()
                .register(meters);
    }

    private static Counter handoffs(MeterRegistry meters, String reason) {
        return AlertMeter.RETRY_HANDOFFS.counter().tag("reason", reason)
                .register(meters);
    }

    /** The destination key of a request (the circuit breaker's key). */
    static String destinationKey(DeliveryRequest request) {
        return CircuitBreakingDestination.key(request);
    }

    /** The destination key of a subscription's destination. */
    static String destinationKey(io.changestream.topics.model.EventSubscription subscription,
                                 io.changestream.topics.model.SubscriptionDestination destination) {
        return CircuitBreakingDestination.key(subscription, destination);
    }

    @Override
    public Optional<String> parkReason(DeliveryRequest request, String entityKey) {
        String destination = destinationKey(request);
        Optional<String> suspended = states.suspension(destination);
        if (suspended.isPresent()) {
            return Optional.of("destination suspended: " + suspended.get());
        }
        DestinationStates.State s = states.of(destination);
        if (inherited(destination, s) >= 0) {
            return Optional.of("pairs of the destination handed off before this instance's assignment wait in the "
                    + "retry path");
        }
        Backlog mine = backlogs.get(destination);
        if (mine == null) {
            return Optional.empty();
        }
        if (mine.parksAll(s) || entityKey == null && !mine.settled(s)) {
            return Optional.of("earlier pairs of the destination wait in the retry path");
        }
        Handed h = entityKey == null ? null : mine.byKey.get(entityKey);
        if (h == null) {
            return Optional.empty();
        }
        if (s.settled(h.partition(), h.offset())) {
            mine.byKey.remove(entityKey, h); // settled: forgotten (a hand-off of the entity replaces, never removes)
            return Optional.empty();
        }
        return Optional.of("an earlier pair of the entity waits in the retry path");
    }

    /**
     * Whether pairs of the destination handed off before (here, or by anyone as published) are not settled yet, or
     * its partition held unsettled records at this instance's latest assignment.
     */
    boolean backlogged(String destination) {
        return backlogOn(destination) >= 0;
    }

    /**
     * The {@code alert-retry} partition on which pairs of the destination handed off before (here, or by anyone as
     * published) are not settled yet, or {@code -1}: where its next hand-off goes, so it cannot overtake them. After
     * a start or a source assignment, the destination's partition by its key counts as backlogged until the retry
     * path settles one of its records past what was unsettled there then.
     */
    private int backlogOn(String destination) {
        DestinationStates.State s = states.of(destination);
        Backlog mine = backlogs.get(destination);
        if (mine != null) {
            for (Map.Entry<Integer, Long> e : mine.newest.entrySet()) {
                if (!s.settled(e.getKey(), e.getValue())) {
                    return e.getKey();
                }
            }
        }
        int newest = -1;
        long newestOffset = -1;
        for (Map.Entry<Integer, DestinationStates.Progress> e : s.progress().entrySet()) {
            DestinationStates.Progress p = e.getValue();
            if (p.handedOff() > p.drained() && p.handedOff() > newestOffset) {
                newest = e.getKey();
                newestOffset = p.handedOff();
            }
        }
        return newest >= 0 ? newest : inherited(destination, s);
    }

    /**
     * The partition where the destination's records may wait unsettled since this instance's latest start or
     * assignment (its partition by key, or one it has progress on, unsettled then and not drained past since), or
     * {@code -1}.
     */
    private int inherited(String destination, DestinationStates.State s) {
        Map<Integer, Long> at = pending;
        if (at.isEmpty()) {
            return -1;
        }
        int home = partitionOf(destination);
        for (Map.Entry<Integer, Long> e : at.entrySet()) {
            int p = e.getKey();
            if ((p == home || s.progress().containsKey(p)) && e.getValue() > s.drained(p)) {
                return p;
            }
        }
        return -1;
    }

    @Override
    public CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    /**
     * A source assignment: until {@code unsettled} (per {@code alert-retry} partition, the newest offset the retry
     * group had not settled when it was read after the assignment) completes, {@link #caughtUp} holds the pairs'
     * park checks; then it is what a previous owner may have left unsettled. Failed, the last snapshot stands.
     */
    void catchUp(CompletableFuture<Map<Integer, Long>> unsettled) {
        caughtUp = unsettled.handle((p, e) -> {
            if (e != null) {
                LOG.warn("retry path not read after an assignment (the previous snapshot stands; a pair a previous "
                        + "owner handed off may be overtaken): {}", e.toString());
            } else {
                pending = Map.copyOf(p);
            }
            return null;
        });
    }

    @Override
    public Duration inlineBudget() {
        return settings.inlineBudget();
    }

    @Override
    public CompletableFuture<Boolean> handOff(Handoff h) {
        String destination = destinationKey(h.request());
        long now = clock.millis();
        RetryRecord record = new RetryRecord(settings.groupId(), h.request().subscription().id(), h.eventId(),
                h.groupKey(), destination, h.source().topic(), h.source().partition(), h.sourceOffset(),
                h.sourceValue(), h.attempts(), h.firstFailedAt(), now, now + h.delay().toMillis(),
                truncate(h.reason()), h.request().trace() == null ? null : h.request().trace().format(), h.sourceKey());
        String json = record.toJson();
        int bytes = json.getBytes(StandardCharsets.UTF_8).length + destination.length();
        if (bytes > settings.maxRecordBytes()) {
            oversize.increment();
            LOG.warn("{} of subscription {} stays inline: its retry record would be {} bytes, above "
                    + "retry.maxRecordBytes {}", h.eventId(), record.subscriptionId(), bytes, settings.maxRecordBytes());
            return CompletableFuture.completedFuture(false);
        }
        if (h.suspend()) {
            states.suspend(destination, truncate(h.reason()), "receiver");
            LOG.warn("destination {} suspended: {}; its deliveries are parked until resumed", destination,
                    truncate(h.reason()));
        }
        // a backlogged destination stays on the partition its pairs wait on, also after alert-retry got more
        // partitions: a pair on another partition could overtake them (issue 21 item 7)
        int backlog = backlogOn(destination);
        int partition = backlog >= 0 ? backlog : partitionOf(destination);
        return ProducerAcks.sendWithin(producer, new ProducerRecord<>(settings.retryTopic(), partition,
                        destination, json), settings.ackTimeout(), e -> notAcked(record, e))
                .thenApply(meta -> {
                    states.handedOff(destination, meta.partition(), meta.offset());
                    backlogs.computeIfAbsent(destination, k -> new Backlog()).add(h.sourceKey(),
                            new Handed(meta.partition(), meta.offset()), settings.maxParkedKeys(),
                            states.of(destination));
                    (h.suspend() ? gones : h.firstFailedAt() == 0 ? parks : waits).increment();
                    return true;
                });
    }

    private RetryLaterException notAcked(RetryRecord record, Throwable e) {
        return new RetryLaterException("hand-off of " + record.settlementKey() + " not acked within "
                + settings.ackTimeout().toMillis() + " ms (ledger.ackTimeout): " + e, e);
    }

    /**
     * The {@code alert-retry} partition of a destination by its key (Kafka's default partitioner), over the partition
     * count the producer knows now (its metadata follows a raised count within {@code metadata.max.age.ms}).
     */
    int partitionOf(String destination) {
        return partitionOf(destination, producer.partitionsFor(settings.retryTopic()).size());
    }

    static int partitionOf(String destination, int partitions) {
        return Utils.toPositive(Utils.murmur2(destination.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static String truncate(String reason) {
        return reason.length() <= REASON_CHARS ? reason : reason.substring(0, REASON_CHARS) + "…";
    }
}
