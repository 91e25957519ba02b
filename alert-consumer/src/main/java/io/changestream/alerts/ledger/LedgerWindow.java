package io.changestream.alerts.ledger;

import io.changestream.topics.model.DeliveryRecord;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * What this group settled for one owned source partition within the dedupe horizon, keyed by (subscription, event)
 * — never by offset, since the same event comes back at new offsets. Filled by the rebuild thread from the ledger and
 * at once by this instance's own acked writes; read by processor threads. Entries are kept in the order they were
 * learned (about settle time); the oldest go first when they fall out of the horizon, or when all windows together
 * exceed {@link LedgerSettings#windowMaxBytes()} and this one holds more than its even share (a busy partition may use
 * what quiet ones leave). Thread-safe (one monitor per window).
 */
final class LedgerWindow {

    /** Rough per-entry overhead (map node, entry object, sets) in bytes, for the memory budget. */
    private static final int ENTRY_OVERHEAD = 160;

    final TopicPartition source;
    /** The deadline (epoch ms) until which processors wait for the rebuild. */
    final long deadline;
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    volatile boolean released;
    volatile long scanned;
    volatile long rebuildMillis;
    volatile String result = "pending";

    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>();
    private final AtomicLong totalBytes;
    private final long maxTotalBytes;
    private final AtomicLong evictedByHorizon;
    private final AtomicLong evictedByBudget;
    private long bytes;

    LedgerWindow(TopicPartition source, long deadline, AtomicLong totalBytes, long maxTotalBytes,
                 AtomicLong evictedByHorizon, AtomicLong evictedByBudget) {
        this.source = source;
        this.deadline = deadline;
        this.totalBytes = totalBytes;
        this.maxTotalBytes = maxTotalBytes;
        this.evictedByHorizon = evictedByHorizon;
        this.evictedByBudget = evictedByBudget;
    }

    /** What the group knows of one pair: the pair's status, or null; the groups delivered and attempted. */
    record Known(String status, Set<String> deliveredGroups, Set<String> attemptedGroups) {
    }

    /**
     * One pair. Its destination-group sets exist only once a group record names one (a subscription with several
     * destinations): most pairs never have one, and the window holds up to a day of pairs.
     */
    private static final class Entry {
        String status;
        Set<String> delivered;
        Set<String> attempted;
        long time;
        boolean own;
        int bytes;

        private static Set<String> copy(Set<String> groups) {
            return groups == null ? Set.of() : Set.copyOf(groups);
        }
    }

    static String key(String subscriptionId, String eventId) {
        return subscriptionId + "/" + eventId;
    }

    /**
     * Merges one record of this group and source partition. A pair record sets the status unless a newer one was
     * learned; a group record adds its destination group to the delivered (also when SKIPPED: done, nothing to send)
     * or attempted ones.
     */
    synchronized void apply(DeliveryRecord r, boolean own, long budget, long horizonStart) {
        if (!own && r.deliveredAt() < horizonStart) {
            return;
        }
        String key = key(r.subscriptionId(), r.eventId());
        Entry e = entries.remove(key);
        if (e == null) {
            e = new Entry();
            e.bytes = ENTRY_OVERHEAD + 2 * key.length();
            grow(e.bytes);
        }
        if (r.destinationId() == null) {
            if (e.status == null || r.deliveredAt() >= e.time || own) {
                e.status = r.status();
            }
        } else {
            Set<String> groups = null;
            if (DeliveryRecord.DELIVERED.equals(r.status()) || DeliveryRecord.SKIPPED.equals(r.status())) {
                if (e.delivered == null) {
                    e.delivered = new TreeSet<>();
                }
                groups = e.delivered;
            } else if (LedgerRecords.ATTEMPTING.equals(r.status())) {
                if (e.attempted == null) {
                    e.attempted = new TreeSet<>();
                }
                groups = e.attempted;
            }
            if (groups != null && groups.add(r.destinationId())) {
                int added = 48 + 2 * r.destinationId().length();
                e.bytes += added;
                grow(added);
            }
        }
        e.time = Math.max(e.time, r.deliveredAt());
        e.own |= own;
        entries.put(key, e);
        trim(horizonStart, budget);
    }

    /** A reset marker: everything learned from the ledger before it no longer counts (own writes stay). */
    synchronized void reset() {
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            Entry e = it.next();
            if (!e.own) {
                it.remove();
                grow(-e.bytes);
            }
        }
    }

    /** The pair as known, or null. Trims what fell out of the horizon first. */
    synchronized Known lookup(String subscriptionId, String eventId, long budget, long horizonStart) {
        trim(horizonStart, budget);
        Entry e = entries.get(key(subscriptionId, eventId));
        return e == null ? null : new Known(e.status, Entry.copy(e.delivered), Entry.copy(e.attempted));
    }

    /**
     * Drops the oldest entries while they are older than the horizon, or while this window holds more than
     * {@code share} and all windows together more than their maximum.
     */
    synchronized void trim(long horizonStart, long share) {
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            Entry e = it.next();
            boolean old = e.time < horizonStart;
            if (!old && (bytes <= share || totalBytes.get() <= maxTotalBytes)) {
                return;
            }
            it.remove();
            grow(-e.bytes);
            (old ? evictedByHorizon : evictedByBudget).incrementAndGet();
        }
    }

    /** Frees everything (partition released). */
    synchronized void clear() {
        entries.clear();
        grow(-bytes);
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    /** Epoch ms of the oldest pair held, or -1 when empty. */
    synchronized long oldest() {
        Iterator<Entry> it = entries.values().iterator();
        return it.hasNext() ? it.next().time : -1;
    }

    private void grow(long delta) {
        bytes += delta;
        totalBytes.addAndGet(delta);
    }

    DeliveryLedger.WindowStatus status(LongSupplier now) {
        long oldest = oldest();
        return new DeliveryLedger.WindowStatus(source.topic(), source.partition(), scanned, size(), bytes(),
                oldest < 0 ? 0 : Math.max(0, now.getAsLong() - oldest) / 1000, rebuildMillis, result);
    }
}
