package io.changestream.alerts.destination;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One digest or group message of a subscription: how many events its window collected, counted by entity type and
 * event type, and the first {@code events} of them in full (bounded by {@code digest.topChanges}); the rest are
 * counted only. Immutable.
 *
 * @param subscription the subscription; required
 * @param flushId      the message id (subscription + group + window), the receivers' Idempotency-Key
 * @param kind         what made it: {@code "digest"} (a schedule tick) or {@code "group"} (grouping)
 * @param group        the group's value, {@code ""} without groupBy
 * @param from         the first member's collection time
 * @param to           when the window was closed
 * @param total        members of the window
 * @param counts       members by {@code "<entityType> <eventType>"}, in first-seen order (bounded)
 * @param events       the first members in full, in order
 */
public record DigestMessage(EventSubscription subscription, String flushId, String kind, String group, Instant from,
                            Instant to, int total, Map<String, Integer> counts, List<ChangeEvent> events) {

    public DigestMessage {
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(flushId, "flushId");
        counts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts));
        events = List.copyOf(events);
        if (total < events.size()) {
            throw new IllegalArgumentException("total " + total + " is below the events listed " + events.size());
        }
    }

    /** Members counted but not listed. */
    public int omitted() {
        return total - events.size();
    }

    /** E.g. {@code "Daily digest of sales-alerts: 42 changes"} or {@code "sales-alerts [table]: 5000 changes"}. */
    public String title() {
        String what = total + (total == 1 ? " change" : " changes");
        String name = subscription.displayName() != null ? subscription.displayName() : subscription.name();
        return ("digest".equals(kind) ? "Digest of " + name : name) + (group.isEmpty() ? "" : " [" + group + "]")
                + ": " + what;
    }
}
