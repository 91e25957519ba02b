package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A destination's retry-path progress on one partition (decision 2104): the drained offset and the offsets settled
 * out of order above it, merged from every record read, as a new owner of the partition sees them.
 */
class DestinationStatesProgressTest {

    @Test
    void offsetsSettledAboveTheDrainedOneAreSettledUntilTheDrainedOnePassesThem() {
        DestinationStates.Progress p = DestinationStates.Progress.NONE.max(-1, 5, List.of(8L, 11L));
        assertTrue(p.settled(5));
        assertTrue(p.settled(3), "at or below the drained offset");
        assertFalse(p.settled(7), "not settled yet: sent by the next owner");
        assertTrue(p.settled(8));
        assertTrue(p.settled(11));

        DestinationStates.Progress later = p.max(-1, 9, List.of(12L));
        assertEquals(9, later.drained());
        assertEquals(List.of(11L, 12L), later.settledAbove(), "what the drained offset passed is dropped");
        assertFalse(later.settled(10));
    }

    @Test
    void mergingAnOlderRecordNeverUndoesWhatIsKnown() {
        DestinationStates.Progress newer = DestinationStates.Progress.NONE.max(20, 9, List.of(12L));
        DestinationStates.Progress withOlder = newer.max(15, 4, List.of(6L, 10L));
        assertEquals(20, withOlder.handedOff());
        assertEquals(9, withOlder.drained());
        assertEquals(List.of(10L, 12L), withOlder.settledAbove(), "a fact of the older record above 9 still holds");
    }

    @Test
    void theSetIsBoundedAndWhatFallsOutIsOnlySentAgainNeverSkipped() {
        List<Long> many = LongStream.rangeClosed(1, DestinationStates.MAX_SETTLED_ABOVE_KEPT + 10).boxed().toList();
        DestinationStates.Progress p = DestinationStates.Progress.NONE.max(-1, -1, many);
        assertEquals(DestinationStates.MAX_SETTLED_ABOVE_KEPT, p.settledAbove().size());
        assertTrue(p.settled(1));
        assertFalse(p.settled(DestinationStates.MAX_SETTLED_ABOVE_KEPT + 10), "the highest fall out: sent once more");
        assertFalse(p.settled(0), "never settled");
    }
}
