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
 * suspended (group-wide) or when pairs handed off for it (by this instance, or published by any) are not settled by
 * the retry path yet — a send now could overtake an older pair of the same entity. A {@code 410 Gone} suspends the
 * destination (an acked write to {@code alert-destinations}) before the pair is handed off. Thread-safe.
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
    /** Per destination, the partition and offset of this instance's last hand-off while it is backlogged. */
    private final Map<String, Handed> lastHandoff = new ConcurrentHashMap<>();
    private final Map<Integer, Long> pendingAtStart;
    private final Counter waits;
    private final Counter parks;
    private final Counter gones;
    private final Counter oversize;

    /** Where this instance last handed off a destination's pair. */
    private record Handed(int partition, long offset) {
    }

    /**
     * @param pendingAtStart per {@code alert-retry} partition, the highest offset not settled by the retry group when
     *                       this instance started (absent: none): its destinations are treated as backlogged until
     *                       the retry path settles one of their records past it
     */
    RetryPath(RetrySettings settings, Producer<String, String> producer, DestinationStates states,
              Map<Integer, Long> pendingAtStart, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.states = states;
        this.pendingAtStart = Map.copyOf(pendingAtStart);
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
    public Optional<String> parkReason(DeliveryRequest request) {
        String destination = destinationKey(request);
        Optional<String> suspended = states.suspension(destination);
        if (suspended.isPresent()) {
            return Optional.of("destination suspended: " + suspended.get());
        }
        return backlogged(destination)
                ? Optional.of("earlier pairs of the destination wait in the retry path") : Optional.empty();
    }

    /** Whether pairs of the destination handed off before (here, or by anyone as published) are not settled yet. */
    boolean backlogged(String destination) {
        return backlogOn(destination) >= 0;
    }

    /**
     * The {@code alert-retry} partition on which pairs of the destination handed off before (here, or by anyone as
     * published) are not settled yet, or {@code -1}. After a restart, the destination's partition by its key counts
     * as backlogged until the retry path settles one of its records past what was unsettled there at start.
     */
    private int backlogOn(String destination) {
        DestinationStates.State s = states.of(destination);
        Handed mine = lastHandoff.get(destination);
        if (mine != null) {
            if (mine.offset() > s.drained(mine.partition())) {
                return mine.partition();
            }
            lastHandoff.remove(destination, mine); // all settled: forget it (the map holds backlogged ones only)
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
        if (newest >= 0) {
            return newest;
        }
        if (mine == null && !pendingAtStart.isEmpty()) {
            int home = partitionOf(destination);
            Long pending = pendingAtStart.get(home);
            if (pending != null && pending > s.drained(home)) {
                return home;
            }
        }
        return -1;
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
                    lastHandoff.merge(destination, new Handed(meta.partition(), meta.offset()),
                            (a, b) -> a.partition() == b.partition() && a.offset() > b.offset() ? a : b);
                    states.handedOff(destination, meta.partition(), meta.offset());
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
