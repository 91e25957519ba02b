package io.changestream.state.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The benchmark's baseline: commit tracking the way Confluent Parallel Consumer's {@code PartitionState} does it, a
 * {@link ConcurrentSkipListSet} of incomplete offsets per partition plus the highest offset seen; the committable
 * position is the first incomplete offset, or highest seen + 1 when none is incomplete.
 */
final class SkipListOffsets<P> {

    private static final class Partition {
        final ConcurrentSkipListSet<Long> incomplete = new ConcurrentSkipListSet<>();
        volatile long highestSeen = -1;
    }

    private final ConcurrentHashMap<P, Partition> partitions = new ConcurrentHashMap<>();

    void assign(P partition) {
        partitions.computeIfAbsent(partition, p -> new Partition());
    }

    void track(P partition, long offset) {
        Partition state = partitions.get(partition);
        if (offset > state.highestSeen) {
            state.highestSeen = offset;
        }
        state.incomplete.add(offset);
    }

    void done(P partition, long offset) {
        Partition state = partitions.get(partition);
        if (state != null) {
            state.incomplete.remove(offset);
        }
    }

    long committable(P partition) {
        Partition state = partitions.get(partition);
        long highestSeen = state.highestSeen;
        Long firstIncomplete = state.incomplete.ceiling(-1L);
        return firstIncomplete == null ? highestSeen + 1 : firstIncomplete;
    }
}
