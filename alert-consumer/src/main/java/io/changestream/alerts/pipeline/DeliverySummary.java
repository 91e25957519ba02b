package io.changestream.alerts.pipeline;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Successful deliveries per subscription, the role of the platform's {@code successful_sent_change_events}: how many
 * events this instance delivered to each subscription since start (a pair parked on the retry path counts on the
 * instance whose retry path settles it, once; the cluster-wide record is the {@code alert-ledger} topic), and the
 * last one. Written by processor threads, read by the REST threads; one entry
 * per subscription, dropped by {@link #forget} when the subscription is deleted.
 */
public final class DeliverySummary {

    /**
     * One subscription's summary.
     *
     * @param subscriptionId  the subscription
     * @param deliveredEvents events delivered to every destination group
     * @param deadLettered    events dead-lettered for at least one destination
     * @param lastEventId     the last event delivered
     * @param lastDeliveredAt when, epoch milliseconds (0 when none yet)
     */
    public record View(String subscriptionId, long deliveredEvents, long deadLettered, String lastEventId,
                       long lastDeliveredAt) {
    }

    private static final class Entry {
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong deadLettered = new AtomicLong();
        volatile String lastEventId;
        volatile long lastDeliveredAt;
    }

    private final Clock clock;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    public DeliverySummary(Clock clock) {
        this.clock = clock;
    }

    /** An event settled delivered here (on the first path, or on the retry path for a pair parked there). */
    public void delivered(String subscriptionId, String eventId) {
        Entry e = entries.computeIfAbsent(subscriptionId, k -> new Entry());
        e.delivered.incrementAndGet();
        e.lastEventId = eventId;
        e.lastDeliveredAt = clock.millis();
    }

    /** An event settled dead-lettered here. */
    public void deadLettered(String subscriptionId) {
        entries.computeIfAbsent(subscriptionId, k -> new Entry()).deadLettered.incrementAndGet();
    }

    /** The summary of a subscription (empty when nothing was settled for it yet). */
    public Optional<View> of(String subscriptionId) {
        Entry e = entries.get(subscriptionId);
        return e == null ? Optional.empty() : Optional.of(new View(subscriptionId, e.delivered.get(),
                e.deadLettered.get(), e.lastEventId, e.lastDeliveredAt));
    }

    /** Drops a deleted subscription's entry. */
    public void forget(String subscriptionId) {
        entries.remove(subscriptionId);
    }
}
