package io.changestream.alerts.digest;

import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DigestRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One digest or group window of the flusher (decision 1310): a key's members between two seals, counted by entity
 * and event type, the first {@code digest.topChanges} in full; once sealed, its flush id, the destination groups
 * sent, and the state of its current send round (issue 21 item 6). Flusher thread only.
 */
final class DigestWindow {
    /**
     * Event ids a window remembers to drop a repeat of a member (an append reported failed that landed, then written
     * again; a CDC repeat): a repeat follows its original within an ack wait and a retry backoff, so the newest ids
     * suffice (issue 21 item 8).
     */
    static final int RECENT_MEMBER_IDS = 10_000;

    final String subscriptionId;
    final String group;
    final String key;
    String flushId;
    long firstOffset = -1;
    long lastOffset = -1;
    long firstAt;
    long sealedAt;
    int total;
    final Map<String, Integer> counts = new LinkedHashMap<>();
    final List<ChangeEvent> events = new ArrayList<>();
    final Set<String> sent = new HashSet<>();
    boolean deadLettered;
    int attempts;
    long nextAttempt;
    long listedBytes;
    /** The partition that holds it; a result for a window of a dropped partition is ignored. */
    DigestPartition owner;
    boolean forgotten;
    /** The send round: destination groups being sent, and what the finished ones said. */
    final Map<String, DestinationGroup> inFlight = new HashMap<>();
    boolean round;
    boolean roundRetry;
    boolean roundBlocked;
    boolean roundAttempted;
    Duration roundWait;
    int rounds;
    /** The newest members' event ids, oldest first, at most {@value #RECENT_MEMBER_IDS}. */
    private final Set<String> recentIds = new java.util.LinkedHashSet<>();

    DigestWindow(String subscriptionId, String group, String key) {
        this.subscriptionId = subscriptionId;
        this.group = group;
        this.key = key;
    }

    boolean sealed() {
        return flushId != null;
    }

    /**
     * Adds a member; it is listed while the window has fewer than topChanges and the budget allows. A repeat of a
     * member (same event id) moves the window's last offset on and is not counted again; returns whether it was new.
     */
    boolean add(ConsumerRecord<String, String> r, DigestRecord entry, int topChanges, AtomicLong budgetUsed,
                long budget) {
        ChangeEvent event = entry.event();
        if (firstOffset < 0) {
            firstOffset = r.offset();
            firstAt = entry.at(); // the collector's clock (record timestamps are the broker's business)
        }
        lastOffset = r.offset();
        if (event.id() != null && !recentIds.add(event.id())) {
            return false;
        }
        if (recentIds.size() > RECENT_MEMBER_IDS) {
            java.util.Iterator<String> oldest = recentIds.iterator();
            oldest.next();
            oldest.remove();
        }
        total++;
        String what = event.entityType() + " " + event.eventType();
        if (counts.containsKey(what) || counts.size() < DigestFlusher.MAX_COUNT_KEYS) {
            counts.merge(what, 1, Integer::sum);
        } else {
            counts.merge("other", 1, Integer::sum);
        }
        long bytes = r.serializedValueSize();
        if (events.size() < topChanges && budgetUsed.get() + bytes <= budget) {
            events.add(event);
            listedBytes += bytes;
            budgetUsed.addAndGet(bytes);
        }
        return true;
    }
}
