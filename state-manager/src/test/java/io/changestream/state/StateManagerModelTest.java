package io.changestream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random interleavings of assign, track (with holes in the offsets), done (in flight, duplicate, arbitrary: stale,
 * early or unknown), commit, revoke and reassign with replay from the committed offset, checked step by step against
 * a TreeSet reference model.
 */
class StateManagerModelTest {

    private static final int PARTITIONS = 3;

    enum Kind { ASSIGN, TRACK, DONE_IN_FLIGHT, DONE_DUPLICATE, DONE_ARBITRARY, COMMIT, REVOKE, ADVANCE_CLOCK }

    record Op(Kind kind, int partition, int argument) {
    }

    /** The reference: what is tracked and not yet committed, what of it is done, and the position. */
    static final class ModelPartition {
        boolean assigned;
        long resumeFrom; // the last committed position: where a reassigned consumer replays from
        final NavigableSet<Long> pending = new TreeSet<>();
        final NavigableSet<Long> done = new TreeSet<>();
        final List<Long> doneHistory = new ArrayList<>();
        final Map<Long, Long> trackedAtMillis = new HashMap<>();
        long highestTracked = -1;
        long committed = -1;

        void assign() {
            assigned = true;
            pending.clear();
            done.clear();
            doneHistory.clear();
            trackedAtMillis.clear();
            highestTracked = -1;
            committed = -1;
        }

        long nextOffset(int gap) {
            return (highestTracked < 0 ? resumeFrom : highestTracked + 1) + gap;
        }

        void done(long offset) {
            if (assigned && pending.contains(offset)) {
                done.add(offset);
            }
            doneHistory.add(offset);
        }

        long committable() {
            while (!pending.isEmpty() && done.contains(pending.first())) {
                long offset = pending.pollFirst();
                done.remove(offset);
                committed = offset + 1;
            }
            return committed;
        }

        OptionalLong firstNotDone() {
            for (long offset : pending) {
                if (!done.contains(offset)) {
                    return OptionalLong.of(offset);
                }
            }
            return OptionalLong.empty();
        }
    }

    @Provide
    Arbitrary<List<Op>> interleavings() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                Tuple.of(4, Kind.ASSIGN),
                Tuple.of(30, Kind.TRACK),
                Tuple.of(25, Kind.DONE_IN_FLIGHT),
                Tuple.of(5, Kind.DONE_DUPLICATE),
                Tuple.of(5, Kind.DONE_ARBITRARY),
                Tuple.of(15, Kind.COMMIT),
                Tuple.of(2, Kind.REVOKE),
                Tuple.of(3, Kind.ADVANCE_CLOCK));
        Arbitrary<Op> ops = Combinators.combine(kinds, Arbitraries.integers().between(0, PARTITIONS - 1),
                Arbitraries.integers().between(0, 1_000)).as(Op::new);
        return ops.list().ofMinSize(1).ofMaxSize(400);
    }

    @Property(tries = 400)
    void committedPositionMatchesTheModelAndIsSafe(@ForAll("interleavings") List<Op> interleaving) {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        StateManager<Integer> manager = new StateManager<>(clock, new StateManagerSettings(2, 1 << 20));
        Map<Integer, ModelPartition> model = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            model.put(p, new ModelPartition());
        }
        for (Op op : interleaving) {
            int p = op.partition();
            ModelPartition m = model.get(p);
            switch (op.kind()) {
                case ASSIGN -> {
                    manager.assign(p);
                    if (!m.assigned) {
                        m.assign();
                    }
                }
                case TRACK -> {
                    if (m.assigned) {
                        long offset = m.nextOffset(op.argument() % 3); // holes of up to two offsets
                        manager.track(p, offset);
                        m.pending.add(offset);
                        m.highestTracked = offset;
                        m.trackedAtMillis.put(offset, clock.millis());
                    }
                }
                case DONE_IN_FLIGHT -> {
                    List<Long> candidates = new ArrayList<>(m.pending);
                    candidates.removeAll(m.done);
                    if (!candidates.isEmpty()) {
                        long offset = candidates.get(op.argument() % candidates.size());
                        manager.done(p, offset);
                        m.done(offset);
                    }
                }
                case DONE_DUPLICATE -> {
                    if (!m.doneHistory.isEmpty()) {
                        long offset = m.doneHistory.get(op.argument() % m.doneHistory.size());
                        manager.done(p, offset);
                        m.done(offset);
                    }
                }
                case DONE_ARBITRARY -> {
                    long offset = op.argument() % (Math.max(m.highestTracked, m.resumeFrom) + 4);
                    manager.done(p, offset); // stale, early (not tracked yet), a hole, or after a revoke
                    m.done(offset);
                }
                case COMMIT -> {
                    OptionalLong actual = manager.committable(p);
                    if (m.assigned) {
                        long previous = m.committed;
                        long expected = m.committable();
                        assertEquals(expected < 0 ? OptionalLong.empty() : OptionalLong.of(expected), actual, "" + op);
                        if (actual.isPresent()) {
                            long position = actual.getAsLong();
                            assertTrue(position >= previous, "moved backwards: " + previous + " -> " + position);
                            OptionalLong blocker = m.firstNotDone();
                            assertTrue(blocker.isEmpty() || position <= blocker.getAsLong(),
                                    "passed the unfinished offset " + blocker + ": " + position);
                            assertTrue(position <= m.highestTracked + 1, "passed the highest tracked offset");
                            m.resumeFrom = position;
                        }
                        PartitionSnapshot snapshot = manager.snapshot(p);
                        assertEquals(m.pending.size(), snapshot.inFlightCount());
                        assertEquals(m.pending.isEmpty() ? OptionalLong.empty() : OptionalLong.of(m.pending.first()),
                                snapshot.oldestInFlight());
                        if (!m.pending.isEmpty()) {
                            long since = m.trackedAtMillis.get(m.pending.first());
                            assertEquals(Duration.ofMillis(clock.millis() - since),
                                    snapshot.oldestInFlightAge().orElseThrow());
                        }
                    } else {
                        assertEquals(OptionalLong.empty(), actual);
                    }
                }
                case REVOKE -> {
                    manager.revoke(p);
                    m.assigned = false;
                }
                case ADVANCE_CLOCK -> clock.advance(Duration.ofMillis(op.argument()));
            }
            assertEquals(m.assigned, manager.partitions().contains(p));
        }
        // once everything tracked is done, every assigned partition commits its highest tracked offset + 1
        for (int p = 0; p < PARTITIONS; p++) {
            ModelPartition m = model.get(p);
            if (m.assigned && m.highestTracked >= 0) {
                for (long offset : m.pending.descendingSet()) {
                    manager.done(p, offset);
                }
                assertEquals(OptionalLong.of(m.highestTracked + 1), manager.committable(p));
                assertEquals(0, manager.inFlightCount(p));
            }
        }
    }
}
