package io.changestream.alerts.subscription;

import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.serde.Json;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Per-instance, in-memory delivery status (the routes alone, without a broker). The service answers
 * {@code GET …/{id}/status} from the group-wide {@code status.DeliveryStatusView} instead (decision 1351).
 * Callers record outcomes ({@link #delivered}, {@link #failed}, {@link #deadLettered}); the REST layer reads.
 * Counts are this instance's since start (the cluster-wide delivered count is the {@code alert-ledger} topic). At
 * most {@code maxEntries} destinations are tracked; beyond it new destinations are not tracked until
 * {@link #forget} frees room. Thread-safe.
 */
public final class DeliveryStatusBook implements DeliveryStatuses {

    private static final class Entry {
        long delivered;
        long failed;
        long deadLettered;
        Long lastSuccessfulAt;
        Long lastFailedAt;
        String lastFailedReason;
        Long nextAttempt;
        String state = "active";
    }

    private final Clock clock;
    private final int maxEntries;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    /**
     * @param maxEntries destinations tracked at most (setting {@code status.maxEntries}, e.g. 100,000)
     */
    public DeliveryStatusBook(Clock clock, int maxEntries) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxEntries < 1) {
            throw new IllegalArgumentException("status.maxEntries must be >= 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /** A delivery succeeded. */
    public void delivered(String subscriptionId, String destinationId) {
        update(subscriptionId, destinationId, e -> {
            e.delivered++;
            e.lastSuccessfulAt = clock.millis();
            e.nextAttempt = null;
            e.state = "active";
        });
    }

    /** An attempt failed; {@code nextAttempt} is when it will be retried, or null when it will not be. */
    public void failed(String subscriptionId, String destinationId, String reason, Instant nextAttempt) {
        update(subscriptionId, destinationId, e -> {
            e.failed++;
            e.lastFailedAt = clock.millis();
            e.lastFailedReason = reason;
            e.nextAttempt = nextAttempt == null ? null : nextAttempt.toEpochMilli();
            e.state = nextAttempt == null ? "failed" : "awaitingRetry";
        });
    }

    /** An event was dead-lettered for this destination; {@code retriesExhausted} tells why. */
    public void deadLettered(String subscriptionId, String destinationId, String reason, boolean retriesExhausted) {
        update(subscriptionId, destinationId, e -> {
            e.deadLettered++;
            e.lastFailedAt = clock.millis();
            e.lastFailedReason = reason;
            e.nextAttempt = null;
            e.state = retriesExhausted ? "retryLimitReached" : "failed";
        });
    }

    /** Drops what is known about a subscription (call when it is deleted). */
    @Override
    public void forget(String subscriptionId) {
        entries.keySet().removeIf(k -> k.startsWith(subscriptionId + "/"));
    }

    /** The status of every destination of a subscription, in its order. */
    @Override
    public List<DestinationStatus> statuses(EventSubscription subscription) {
        List<DestinationStatus> out = new ArrayList<>();
        for (SubscriptionDestination d : subscription.destinations()) {
            Entry e = entries.get(key(subscription.id(), d.id()));
            String type = Json.mapper().convertValue(d.type(), String.class);
            boolean disabled = !subscription.enabled() || !d.enabled();
            if (e == null) {
                out.add(new DestinationStatus(d.id(), type, disabled ? "disabled" : "active", 0, 0, 0, null, null,
                        null, null));
                continue;
            }
            synchronized (e) {
                out.add(new DestinationStatus(d.id(), type, disabled ? "disabled" : e.state, e.delivered, e.failed,
                        e.deadLettered, e.lastSuccessfulAt, e.lastFailedAt, e.lastFailedReason, e.nextAttempt));
            }
        }
        return out;
    }

    private void update(String subscriptionId, String destinationId, Consumer<Entry> change) {
        String key = key(subscriptionId, destinationId);
        Entry e = entries.get(key);
        if (e == null) {
            if (entries.size() >= maxEntries) {
                return;
            }
            e = entries.computeIfAbsent(key, k -> new Entry());
        }
        synchronized (e) {
            change.accept(e);
        }
    }

    private static String key(String subscriptionId, String destinationId) {
        return subscriptionId + "/" + destinationId;
    }
}
