package io.changestream.alerts.destination;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToLongFunction;

/**
 * A direct-mapped memo by identity: a key's value is found with one identity hash and one read, and a key whose slot
 * a later key took is computed again. For values that every delivery looks up (an event's JSON for its other pairs,
 * a destination's parsed config), where a full cache's bookkeeping — read buffers and their drains on the calling
 * threads — cost about a twentieth of a delivery's CPU. It holds its keys strongly, bounded: at most {@code slots}
 * keys, and values weighing at most {@code maxWeight} together (one heavier than {@code maxEntryWeight} is not kept).
 * Thread-safe; the weight is kept approximately under concurrent puts.
 */
public final class IdentityMemo<K, V> {

    private record Entry<K, V>(K key, V value, long weight) {
    }

    private final AtomicReferenceArray<Entry<K, V>> slots;
    private final ToLongFunction<V> weigher;
    private final long maxWeight;
    private final long maxEntryWeight;
    private final AtomicLong weight = new AtomicLong();

    /** A memo of {@code slots} (a power of two) keys, each value weighing 1. */
    public IdentityMemo(int slots) {
        this(slots, value -> 1, slots, 1);
    }

    public IdentityMemo(int slots, ToLongFunction<V> weigher, long maxWeight, long maxEntryWeight) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, was " + slots);
        }
        this.slots = new AtomicReferenceArray<>(slots);
        this.weigher = weigher;
        this.maxWeight = maxWeight;
        this.maxEntryWeight = maxEntryWeight;
    }

    /** The value kept for {@code key} (by identity), or null. */
    public V get(K key) {
        Entry<K, V> e = slots.get(slot(key));
        return e != null && e.key() == key ? e.value() : null;
    }

    /** Keeps {@code value} for {@code key} in the key's slot, unless it weighs too much. */
    public void put(K key, V value) {
        long w = weigher.applyAsLong(value);
        int slot = slot(key);
        Entry<K, V> there = slots.get(slot);
        long growth = w - (there == null ? 0 : there.weight()); // the slot's key makes room
        if (w > maxEntryWeight || weight.get() + growth > maxWeight) {
            return;
        }
        Entry<K, V> older = slots.getAndSet(slot, new Entry<>(key, value, w));
        weight.addAndGet(w - (older == null ? 0 : older.weight()));
    }

    private int slot(K key) {
        int h = System.identityHashCode(key);
        return (h ^ (h >>> 16)) & (slots.length() - 1);
    }
}
