package io.changestream.alerts.digest;

import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.DigestRecord;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the flusher knows of one {@code alert-digest} partition it owns (decision 1310): the windows per key, and
 * the seal and send markers learned at take-over before the entries are re-read. Flusher thread only.
 */
final class DigestPartition {

    /** A seal or send marker learned before the partition's entries are re-read. */
    record Seal(String flushId, long lastOffset, long at) {
    }

    final TopicPartition tp;
    final long endAtAssignment;
    boolean caughtUp;
    final Map<String, Deque<DigestWindow>> byKey = new LinkedHashMap<>();
    final Map<String, Deque<Seal>> seals = new HashMap<>();
    final Map<String, Set<String>> sentOf = new HashMap<>();
    final Map<String, Boolean> deadOf = new HashMap<>();
    final Map<String, Long> lastMessage = new HashMap<>();

    private final int topChanges;
    private final long listedBudget;
    /** Bytes of the listed members of every window of the flusher (its gauge). */
    private final AtomicLong listedBytes;

    DigestPartition(TopicPartition tp, long endAtAssignment, int topChanges, long listedBudget,
                    AtomicLong listedBytes) {
        this.tp = tp;
        this.endAtAssignment = endAtAssignment;
        this.topChanges = topChanges;
        this.listedBudget = listedBudget;
        this.listedBytes = listedBytes;
    }

    int openWindows() {
        int n = 0;
        for (Deque<DigestWindow> windows : byKey.values()) {
            DigestWindow last = windows.peekLast();
            n += last != null && !last.sealed() ? 1 : 0;
        }
        return n;
    }

    void learn(DigestRecord marker) {
        if (DigestRecord.SEALED.equals(marker.kind())) {
            seals.computeIfAbsent(marker.key(), k -> new ArrayDeque<>())
                    .add(new Seal(marker.flushId(), marker.lastOffset(), marker.at()));
        } else if (DigestRecord.SENT.equals(marker.kind())) {
            sentOf.computeIfAbsent(marker.flushId(), k -> new HashSet<>()).add(marker.destination());
            if (DeliveryRecord.DEAD_LETTERED.equals(marker.status())) {
                deadOf.put(marker.flushId(), true);
            }
            lastMessage.merge(marker.key(), marker.at(), Math::max);
        }
    }

    void apply(ConsumerRecord<String, String> r, DigestRecord entry) {
        Deque<DigestWindow> windows = byKey.computeIfAbsent(entry.key(), k -> new ArrayDeque<>());
        Deque<Seal> known = seals.get(entry.key());
        while (known != null && !known.isEmpty() && known.peekFirst().lastOffset() < r.offset()) {
            known.pollFirst(); // a window before this entry: complete already (or all before the commit)
        }
        DigestWindow target = windows.peekLast();
        if (known != null && !known.isEmpty()) {
            Seal seal = known.peekFirst();
            if (target == null || !seal.flushId().equals(target.flushId)) {
                target = new DigestWindow(entry.subscriptionId(), entry.group(), entry.key());
                target.owner = this;
                target.flushId = seal.flushId();
                target.sealedAt = seal.at();
                target.sent.addAll(sentOf.getOrDefault(seal.flushId(), Set.of()));
                target.deadLettered = deadOf.getOrDefault(seal.flushId(), false);
                windows.addLast(target);
            }
        } else if (target == null || target.sealed()) {
            target = new DigestWindow(entry.subscriptionId(), entry.group(), entry.key());
            target.owner = this;
            windows.addLast(target);
        }
        target.add(r, entry, topChanges, listedBytes, listedBudget);
    }

    /** The offset to commit: the oldest member of a window not yet sent, else the consumer's position. */
    long safeOffset(long position) {
        long safe = position;
        for (Deque<DigestWindow> windows : byKey.values()) {
            for (DigestWindow w : windows) {
                if (w.firstOffset >= 0) {
                    safe = Math.min(safe, w.firstOffset);
                }
            }
        }
        return safe;
    }
}
