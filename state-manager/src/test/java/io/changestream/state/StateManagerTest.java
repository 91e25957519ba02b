package io.changestream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateManagerTest {

    private static final String P = "orders-0";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StateManager<String> manager = new StateManager<>(clock);

    private void trackAll(long... offsets) {
        for (long offset : offsets) {
            manager.track(P, offset);
        }
    }

    @Test
    void batchTrackAndDoneOfOnePollActLikeOneCallPerOffset() {
        manager.assign(P);
        manager.track(P, new long[] {10, 11, 12, 14, 99}, 4);
        assertEquals(4, manager.inFlightCount(P), "only count offsets are tracked");
        manager.done(P, new long[] {-1, 12, 10, 11, 7}, 1, 3);
        assertEquals(OptionalLong.of(13), manager.committable(P), "14 is still in flight");
        assertThrows(IllegalArgumentException.class, () -> manager.track(P, new long[] {15, 13}, 2));
        assertEquals(OptionalLong.of(14), manager.oldestInFlight(P));
        assertEquals(2, manager.inFlightCount(P), "15 was tracked before 13 was refused");
        manager.done(P, new long[] {14, 15}, 0, 2);
        assertEquals(OptionalLong.of(16), manager.committable(P));
    }

        @Test
    void committableIsEmptyUntilSomethingCompletes() {
        manager.assign(P);
        trackAll(10, 11);
        assertEquals(OptionalLong.empty(), manager.committable(P));
    }

    @Test
    void committableOffsetStopsAtOldestInFlight() {
        manager.assign(P);
        trackAll(10, 11, 12);
        manager.done(P, 11);
        manager.done(P, 12);
        // in-flight top 10 < done top 11: still processing
        assertEquals(OptionalLong.empty(), manager.committable(P));
        assertEquals(3, manager.inFlightCount(P));
        assertEquals(OptionalLong.of(10), manager.oldestInFlight(P));
    }

    @Test
    void equalTopsArePoppedTogetherAndCommitIsLastPlusOne() {
        manager.assign(P);
        trackAll(10, 11, 12);
        manager.done(P, 11);
        manager.done(P, 10);
        assertEquals(OptionalLong.of(12), manager.committable(P));
        manager.done(P, 12);
        assertEquals(OptionalLong.of(13), manager.committable(P));
        assertEquals(0, manager.inFlightCount(P));
        assertEquals(OptionalLong.empty(), manager.oldestInFlight(P));
    }

    @Test
    void staleDoneBelowOldestInFlightIsDropped() {
        manager.assign(P);
        trackAll(10, 12, 13); // 11 is a hole in the log (compaction, transaction marker)
        manager.done(P, 11); // never tracked, but below the highest tracked: a stale entry
        manager.done(P, 10);
        manager.done(P, 13);
        // 10 == 10 pops both, then in-flight top 12 > done top 11 drops 11, then 12 < 13 stops
        assertEquals(OptionalLong.of(11), manager.committable(P));
        manager.done(P, 12);
        assertEquals(OptionalLong.of(14), manager.committable(P));
    }

    @Test
    void duplicateDoneIsHarmless() {
        manager.assign(P);
        trackAll(1, 2, 3);
        manager.done(P, 1);
        manager.done(P, 1);
        assertEquals(OptionalLong.of(2), manager.committable(P));
        manager.done(P, 1); // below the oldest in flight now
        manager.done(P, 3);
        manager.done(P, 3);
        assertEquals(OptionalLong.of(2), manager.committable(P));
        manager.done(P, 2);
        assertEquals(OptionalLong.of(4), manager.committable(P));
    }

    @Test
    void doneBeforeTrackNeverAdvancesPastTheUntrackedOffset() {
        manager.assign(P);
        trackAll(0);
        manager.done(P, 1); // not tracked yet: ignored
        manager.done(P, 0);
        assertEquals(OptionalLong.of(1), manager.committable(P));
        manager.track(P, 1); // the early done must not count for it
        assertEquals(OptionalLong.of(1), manager.committable(P));
        assertEquals(OptionalLong.of(1), manager.oldestInFlight(P));
        manager.done(P, 1);
        assertEquals(OptionalLong.of(2), manager.committable(P));
    }

    @Test
    void revokeForgetsStateAndReassignStartsFresh() {
        manager.assign(P);
        trackAll(5, 6, 7);
        manager.done(P, 5);
        assertEquals(OptionalLong.of(6), manager.committable(P));
        manager.revoke(P);
        assertEquals(Set.of(), manager.partitions());
        assertEquals(PartitionSnapshot.UNASSIGNED, manager.snapshot(P));
        assertEquals(OptionalLong.empty(), manager.committable(P));

        manager.assign(P);
        assertEquals(OptionalLong.empty(), manager.committable(P));
        trackAll(6, 7); // replay from the committed position
        manager.done(P, 6);
        assertEquals(OptionalLong.of(7), manager.committable(P));
    }

    @Test
    void lateDoneAfterRevokeIsIgnored() {
        manager.assign(P);
        trackAll(5, 6);
        manager.revoke(P);
        manager.done(P, 5);
        manager.done(P, 6);
        assertEquals(Set.of(), manager.partitions(), "a late done must not re-create the partition");

        manager.assign(P);
        assertEquals(OptionalLong.empty(), manager.committable(P));
        assertEquals(0, manager.inFlightCount(P));
        manager.track(P, 5);
        assertEquals(OptionalLong.empty(), manager.committable(P));
    }

    @Test
    void assignIsIdempotent() {
        manager.assign(P);
        trackAll(1);
        manager.done(P, 1);
        manager.assign(P);
        assertEquals(OptionalLong.of(2), manager.committable(P));
        assertEquals(Set.of(P), manager.partitions());
    }

    @Test
    void partitionsAreIndependent() {
        manager.assign("a");
        manager.assign("b");
        manager.track("a", 1);
        manager.track("b", 1);
        manager.done("b", 1);
        assertEquals(OptionalLong.empty(), manager.committable("a"));
        assertEquals(OptionalLong.of(2), manager.committable("b"));
        assertEquals(Set.of("a", "b"), manager.partitions());
    }

    @Test
    void oldestInFlightAgeFollowsTheInjectedClock() {
        manager.assign(P);
        assertEquals(Optional.empty(), manager.oldestInFlightAge(P));
        manager.track(P, 1);
        clock.advance(Duration.ofSeconds(3));
        manager.track(P, 2);
        clock.advance(Duration.ofSeconds(2));
        assertEquals(Optional.of(Duration.ofSeconds(5)), manager.oldestInFlightAge(P));

        manager.done(P, 1);
        assertEquals(Optional.of(Duration.ofSeconds(2)), manager.oldestInFlightAge(P));
        manager.done(P, 2);
        assertEquals(Optional.empty(), manager.oldestInFlightAge(P));
    }

    @Test
    void snapshotReadsEveryFieldAtOnce() {
        manager.assign(P);
        manager.track(P, 40);
        manager.track(P, 41);
        manager.track(P, 42);
        clock.advance(Duration.ofMillis(250));
        manager.done(P, 40);
        manager.done(P, 42);
        assertEquals(new PartitionSnapshot(OptionalLong.of(41), 2, OptionalLong.of(41),
                Optional.of(Duration.ofMillis(250)), OptionalLong.of(42)), manager.snapshot(P));
    }

    @Test
    void trackingAnUnassignedPartitionFails() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> manager.track(P, 1));
        assertTrue(e.getMessage().contains("not assigned"), e.getMessage());
    }

    @Test
    void trackingMustIncrease() {
        manager.assign(P);
        manager.track(P, 7);
        assertThrows(IllegalArgumentException.class, () -> manager.track(P, 7));
        assertThrows(IllegalArgumentException.class, () -> manager.track(P, 3));
        manager.assign("other");
        assertThrows(IllegalArgumentException.class, () -> manager.track("other", -1));
        assertThrows(IllegalArgumentException.class, () -> manager.track("other", Long.MAX_VALUE));
    }

    @Test
    void trackingBeyondMaxInFlightFailsNamingTheSetting() {
        StateManager<String> small = new StateManager<>(clock, new StateManagerSettings(2, 3));
        small.assign(P);
        small.track(P, 1);
        small.track(P, 2);
        small.track(P, 3);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> small.track(P, 4));
        assertTrue(e.getMessage().contains("maxInFlightPerPartition"), e.getMessage());
        small.done(P, 1);
        small.committable(P);
        small.track(P, 4);
        assertEquals(3, small.inFlightCount(P));
    }

    @Test
    void settingsRejectBadValuesNamingTheSetting() {
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> new StateManagerSettings(48, 10));
        assertTrue(capacity.getMessage().contains("initialHeapCapacity"), capacity.getMessage());
        IllegalArgumentException max = assertThrows(IllegalArgumentException.class,
                () -> new StateManagerSettings(64, 0));
        assertTrue(max.getMessage().contains("maxInFlightPerPartition"), max.getMessage());
    }
}
