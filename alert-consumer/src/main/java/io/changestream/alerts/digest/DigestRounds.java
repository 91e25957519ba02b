package io.changestream.alerts.digest;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DigestDelivery;
import io.changestream.alerts.destination.DigestMessage;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.delivery.DeliveryDecision;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.DigestRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.JsonSerde;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending side of the digest flusher (decision 1310, issue 21 item 6): it sends a sealed window in rounds — each
 * round starts one send per destination group not yet done through {@link DigestSender} and returns at once — and
 * applies the results when the flusher thread collects them: a {@code SENT} marker per group (a group settled
 * without sending — e-mail roles that select nobody — first gets a {@code SKIPPED} group record in the ledger, so
 * {@code /status} counts it as skipped, decision 2301), a dead letter for a permanent failure or exhausted
 * {@code retries}, the wait before the next round, and the ledger record once every group is done. Also writes the flusher's markers (acked). Flusher thread only.
 *
 * <p>Meters: {@code changestream_alert_digest_messages_total{outcome}}.
 */
final class DigestRounds {

    private static final Logger LOG = LoggerFactory.getLogger(DigestRounds.class);

    private final DigestSettings settings;
    private final DigestCollector policies;
    private final DigestSender sender;
    private final DeliveryLedger ledger;
    private final DeadLetterWriter deadLetters;
    private final Producer<String, String> producer;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final Map<TopicPartition, DigestPartition> owned;
    private final MeterRegistry meters;
    private final Clock clock;
    private final JsonSerde<DigestRecord> serde = JsonSerde.of(DigestRecord.class);

    /** @param owned the flusher's owned partitions: a result for a window of a partition no longer owned is dropped */
    DigestRounds(DigestSettings settings, DigestCollector policies, DigestSender sender, DeliveryLedger ledger,
                 DeadLetterWriter deadLetters, Producer<String, String> producer,
                 Supplier<List<ActiveSubscription>> subscriptions, Map<TopicPartition, DigestPartition> owned,
                 MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.policies = policies;
        this.sender = sender;
        this.ledger = ledger;
        this.deadLetters = deadLetters;
        this.producer = producer;
        this.subscriptions = subscriptions;
        this.owned = owned;
        this.meters = meters;
        this.clock = clock;
    }

    /**
     * Advances the sending of a sealed window; true when every destination group is done (then it is settled).
     * A round starts a send to each destination group not yet done whose destination has a free slot
     * ({@link DigestSender}); the flusher thread goes on at once, and the results come back through
     * {@link #applyFinished}. When the round's last result is in, a retry (or a full bulkhead) waits
     * {@code digest.retryBackoff} or the receiver's Retry-After (a full bulkhead: one tick) before the next round.
     */
    boolean send(DigestPartition state, DigestWindow w, EventSubscription sub) {
        if (!w.inFlight.isEmpty()) {
            return false;
        }
        if (w.round) {
            endRound(w);
            if (w.nextAttempt > clock.millis()) {
                return false;
            }
        }
        if (clock.millis() < w.nextAttempt) {
            return false;
        }
        List<DestinationGroup> pending = new ArrayList<>();
        for (DestinationGroup group : DestinationGroup.of(sub, false)) {
            if (!w.sent.contains(group.key()) && DigestDelivery.takesDigests(group.destination().type())) {
                pending.add(group);
            }
        }
        if (pending.isEmpty()) {
            return settle(state, w, sub);
        }
        Optional<DigestPolicy> policy = policies.policyOf(sub);
        DigestMessage message = new DigestMessage(sub, w.flushId, policy.map(DigestPolicy::scheduled).orElse(false)
                ? "digest" : "group", w.group, Instant.ofEpochMilli(w.firstAt), Instant.ofEpochMilli(w.sealedAt),
                w.total, w.counts, w.events);
        w.round = true;
        w.rounds++;
        for (DestinationGroup group : pending) {
            if (sender.trySend(w, group.key(), message, group.destination())) {
                w.inFlight.put(group.key(), group);
            } else {
                w.roundBlocked = true; // its destination has digest.maxInFlightPerDestination sends running
            }
        }
        if (w.inFlight.isEmpty()) {
            endRound(w);
        }
        return false;
    }

    /** The round's results are in: count the attempt, and wait before the next round if one is needed. */
    private void endRound(DigestWindow w) {
        if (w.roundAttempted) {
            w.attempts++;
        }
        if (w.roundRetry) {
            w.nextAttempt = clock.millis() + (w.roundWait != null ? w.roundWait : settings.retryBackoff()).toMillis();
        } else if (w.roundBlocked) {
            w.nextAttempt = clock.millis() + settings.tick().toMillis();
        }
        w.round = false;
        w.roundRetry = false;
        w.roundBlocked = false;
        w.roundAttempted = false;
        w.roundWait = null;
    }

    /** Every destination group of the window is done: the message is settled in the ledger. */
    private boolean settle(DigestPartition state, DigestWindow w, EventSubscription sub) {
        ledger.record(state.tp, w.lastOffset, sub.id(), w.flushId, w.deadLettered ? DeliveryRecord.DEAD_LETTERED
                : DeliveryRecord.DELIVERED, Math.max(1, w.attempts));
        if (w.rounds == 0) {
            return true; // every destination group had its SENT before: a re-read, counted already
        }
        state.lastMessage.put(w.key, clock.millis());
        count(w.deadLettered ? "dead_lettered" : "delivered");
        LOG.info("digest {} of subscription {} ({} members, group '{}') settled", w.flushId, sub.id(), w.total,
                w.group);
        return true;
    }

    /** Applies the results of finished sends (flusher thread): SENT markers, dead letters, retries. */
    void applyFinished() {
        Map<String, EventSubscription> byId = new HashMap<>();
        for (DigestSender.Done d : sender.finished()) {
            DigestWindow w = d.window();
            DigestPartition state = w.owner;
            DestinationGroup group = w.inFlight.remove(d.groupKey());
            if (w.forgotten || group == null || owned.get(state.tp) != state) {
                continue; // dropped meanwhile (partition released, subscription deleted): the next owner sends it
            }
            if (byId.isEmpty()) {
                subscriptions.get().forEach(a -> byId.put(a.id(), a.subscription()));
            }
            EventSubscription sub = byId.get(w.subscriptionId);
            if (sub == null) {
                continue; // deleted: the flush loop drops the window
            }
            DeliveryResult result = d.result();
            w.roundAttempted |= !result.throttled();
            // the one delivery decision (decision 2102): a digest has no retry path, its retries stay in its rounds
            DeliveryDecision decision = DeliveryDecision.of(result, new DeliveryDecision.Facts(false, w.attempts + 1,
                    sub.retries(), Duration.ZERO, Duration.ZERO, false, Duration.ZERO));
            try {
                switch (decision.action()) {
                    case DONE -> {
                        if (result.isSkipped()) { // settled without sending: /status counts it as skipped (issue 23)
                            ledger.recordGroup(state.tp, w.lastOffset, w.subscriptionId, w.flushId, group.key(),
                                    DeliveryRecord.SKIPPED);
                        }
                        sent(state, w, group.key(), result.isSkipped() ? DeliveryRecord.SKIPPED
                                : DeliveryRecord.DELIVERED);
                    }
                    case DEAD_LETTER, SUSPEND, PARK -> deadLetter(state, w, sub, group, decision.reason());
                    case RETRY_INLINE -> {
                        w.roundRetry = true;
                        if (result.retryAfter() != null
                                && (w.roundWait == null || result.retryAfter().compareTo(w.roundWait) > 0)) {
                            w.roundWait = result.retryAfter();
                        }
                        LOG.info("digest {} of subscription {} to {}: {} (retried)", w.flushId, sub.id(),
                                group.key(), result.reason());
                    }
                    default -> throw new IllegalStateException("unknown action " + decision.action());
                }
            } catch (RuntimeException e) {
                w.roundRetry = true; // a marker or dead letter not acked: this group is sent again
                LOG.warn("digest {} to {}: {} not recorded ({}); sent again", w.flushId, group.key(),
                        result.outcome(), e.toString());
            }
        }
    }

    private void sent(DigestPartition state, DigestWindow w, String destination, String status) {
        write(state.tp, new DigestRecord(DigestRecord.SENT, w.subscriptionId, w.group, null, null, null, null,
                w.flushId, null, null, destination, status, clock.millis()));
        w.sent.add(destination);
    }

    private void deadLetter(DigestPartition state, DigestWindow w, EventSubscription sub, DestinationGroup group,
                            String reason) {
        ChangeEvent placeholder = new ChangeEvent(w.flushId, "digest", "digest", w.key, null, w.key, null, null,
                null, null, w.sealedAt, null, Json.mapper().valueToTree(Map.of("total", w.total,
                "counts", w.counts, "group", w.group)), null, null);
        deadLetters.write(new FailedEvent(sub.id(), placeholder, "digest: " + reason, FailureSource.SUBSCRIBER, 0,
                w.attempts + 1, clock.millis(), group.memberIds().get(0)));
        w.deadLettered = true;
        sent(state, w, group.key(), DeliveryRecord.DEAD_LETTERED);
    }

    void write(TopicPartition tp, DigestRecord marker) {
        try {
            producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), marker.key(), serde.toJson(marker)))
                    .get(settings.ackTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing a digest marker", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("digest marker " + marker.kind() + " " + marker.flushId()
                    + " not acked within " + settings.ackTimeout().toMillis() + " ms (ledger.ackTimeout): " + e, e);
        }
    }

    void count(String outcome) {
        AlertMeter.DIGEST_MESSAGES.counter()
                .tag("outcome", outcome).register(meters).increment();
    }
}
