package io.changestream.alerts.digest;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.runtime.RetryLaterException;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DigestRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.JsonSerde;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append side of digests and grouping: for a Scheduled or grouped subscription, {@link #collect} writes the
 * matching event as an {@link DigestRecord#ENTRY} to {@code alert-digest} (key {@code <subscriptionId>/<group>}) and
 * returns once the broker acked it; the caller then settles the pair in the ledger with {@link #COLLECTED}. The
 * partition's owner ({@link DigestFlusher}) sends the window's message later. Processor threads; thread-safe.
 * Meter: {@code changestream_alert_digest_entries_total}.
 */
public final class DigestCollector {

    /** The ledger status of a pair handed to a digest or group (settled: not delivered again, not counted sent). */
    public static final String COLLECTED = "COLLECTED";

    private static final Logger LOG = LoggerFactory.getLogger(DigestCollector.class);

    private final DigestSettings settings;
    private final Producer<String, String> producer;
    private final Clock clock;
    private final JsonSerde<DigestRecord> serde = JsonSerde.of(DigestRecord.class);
    private final Map<String, Cached> policies = new ConcurrentHashMap<>();
    private final Counter entries;

    /** @param producer producer (acks=all, idempotent advised), owned by the caller */
    public DigestCollector(DigestSettings settings, Producer<String, String> producer, MeterRegistry meters,
                           Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.clock = clock;
        this.entries = AlertMeter.DIGEST_ENTRIES.counter().register(meters);
    }

    private record Cached(Long updatedAt, Double version, Optional<DigestPolicy> policy) {
    }

    /**
     * The subscription's policy, empty for event-by-event delivery. A stored subscription whose trigger or grouping
     * cannot be used (validated at save, so only an old record) is delivered event by event, logged once.
     */
    public Optional<DigestPolicy> policyOf(EventSubscription subscription) {
        Cached cached = policies.get(subscription.id());
        if (cached != null && java.util.Objects.equals(cached.updatedAt(), subscription.updatedAt())
                && java.util.Objects.equals(cached.version(), subscription.version())) {
            return cached.policy();
        }
        Optional<DigestPolicy> policy;
        try {
            policy = DigestPolicy.of(subscription, settings);
        } catch (DigestConfigException e) {
            LOG.warn("subscription {}: {}; delivered event by event", subscription.id(), e.getMessage());
            policy = Optional.empty();
        }
        if (policies.size() > 100_000) {
            policies.clear(); // bounded: one entry per subscription, refilled on use
        }
        policies.put(subscription.id(), new Cached(subscription.updatedAt(), subscription.version(), policy));
        return policy;
    }

    /**
     * Collects the event when the subscription digests or groups, without blocking: completes with false when the subscription is delivered event by event,
     * true once the entry is acked, or exceptionally with a {@link RetryLaterException} when it was not acked within
     * {@code ledger.ackTimeout} (the event is retried).
     */
    public CompletableFuture<Boolean> collectAsync(TopicPartition source, long offset, EventSubscription subscription,
                                                   ChangeEvent event) {
        Optional<DigestPolicy> policy = policyOf(subscription);
        if (policy.isEmpty()) {
            return CompletableFuture.completedFuture(false);
        }
        DigestRecord entry = entry(subscription.id(), policy.get().groupOf(event), bounded(event), source, offset);
        return ProducerAcks.sendWithin(producer, new ProducerRecord<>(settings.topic(), entry.key(),
                serde.toJson(entry)), settings.ackTimeout(), e -> notAcked(event, e)).thenApply(metadata -> {
                    entries.increment();
                    return true;
                });
    }

    private RetryLaterException notAcked(ChangeEvent event, Throwable e) {
        return new RetryLaterException("digest entry of " + event.id() + " not acked within "
                + settings.ackTimeout().toMillis() + " ms (ledger.ackTimeout): " + e, e);
    }

    private DigestRecord entry(String subscriptionId, String group, ChangeEvent event, TopicPartition source,
                               long offset) {
        return new DigestRecord(DigestRecord.ENTRY, subscriptionId, group, event, source.topic(),
                source.partition(), offset, null, null, null, null, null, clock.millis());
    }

    /** The event, or without its entity and change description when larger than {@code digest.maxEntryBytes}. */
    ChangeEvent bounded(ChangeEvent event) {
        String json = JsonSerde.of(ChangeEvent.class).toJson(event);
        if (json.getBytes(StandardCharsets.UTF_8).length <= settings.maxEntryBytes()) {
            return event;
        }
        return new ChangeEvent(event.id(), event.eventType(), event.entityType(), event.entityId(), event.domains(),
                event.entityFullyQualifiedName(), event.previousVersion(), event.currentVersion(), event.userName(),
                event.impersonatedBy(), event.timestamp(), null, null, event.source(), null);
    }
}
