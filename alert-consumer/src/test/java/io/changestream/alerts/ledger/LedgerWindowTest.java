package io.changestream.alerts.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.DeliveryRecord;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class LedgerWindowTest {

    private static final TopicPartition TP = new TopicPartition("cs.changes", 3);
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong byHorizon = new AtomicLong();
    private final AtomicLong byBudget = new AtomicLong();
    private final LedgerWindow window = new LedgerWindow(TP, 0, total, 0, byHorizon, byBudget);

    private static DeliveryRecord pair(String event, String status, long at) {
        return new DeliveryRecord("g", "sub", event, null, status, 1, at, TP.topic(), TP.partition(), 7);
    }

    private static DeliveryRecord group(String event, String groupKey, String status, long at) {
        return new DeliveryRecord("g", "sub", event, groupKey, status, 0, at, TP.topic(), TP.partition(), 7);
    }

    @Test
    void pairsAreKeyedByEventIdWhateverTheOffsetAndTheNewestStatusWins() {
        window.apply(pair("e1", DeliveryRecord.DEAD_LETTERED, 1_000), false, 1 << 20, 0);
        window.apply(pair("e1", DeliveryRecord.DELIVERED, 2_000), false, 1 << 20, 0);
        window.apply(pair("e1", DeliveryRecord.DEAD_LETTERED, 1_500), false, 1 << 20, 0); // older, read late
        assertEquals(DeliveryRecord.DELIVERED, window.lookup("sub", "e1", 1 << 20, 0).status());
        assertNull(window.lookup("sub", "e2", 1 << 20, 0));
    }

    @Test
    void groupProgressIsKeptApartFromThePairStatus() {
        window.apply(group("e1", "WEBHOOK:a", DeliveryRecord.DELIVERED, 1_000), false, 1 << 20, 0);
        window.apply(group("e1", "EMAIL:b", LedgerRecords.ATTEMPTING, 1_000), false, 1 << 20, 0);
        LedgerWindow.Known k = window.lookup("sub", "e1", 1 << 20, 0);
        assertNull(k.status());
        assertEquals(Set.of("WEBHOOK:a"), k.deliveredGroups());
        assertEquals(Set.of("EMAIL:b"), k.attemptedGroups());
    }

    @Test
    void pairsOlderThanTheHorizonAreTrimmedAsTimePasses() {
        window.apply(pair("old", DeliveryRecord.DELIVERED, 1_000), false, 1 << 20, 0);
        window.apply(pair("new", DeliveryRecord.DELIVERED, 5_000), false, 1 << 20, 0);
        window.apply(pair("ancient", DeliveryRecord.DELIVERED, 10), false, 1 << 20, 500); // before the horizon
        assertEquals(2, window.size());
        assertNull(window.lookup("sub", "old", 1 << 20, 2_000), "fell out of the horizon");
        assertNotNull(window.lookup("sub", "new", 1 << 20, 2_000));
        assertEquals(1, window.size());
        assertEquals(1, byHorizon.get());
    }

    @Test
    void theMemoryBudgetTrimsTheOldestFirstAndIsAccounted() {
        long budget = 4_096;
        for (int i = 0; i < 1_000; i++) {
            window.apply(pair("event-" + i, DeliveryRecord.DELIVERED, 1_000 + i), true, budget, 0);
        }
        assertTrue(window.bytes() <= budget, "window holds " + window.bytes() + " bytes");
        assertEquals(window.bytes(), total.get(), "the service-wide byte count follows");
        assertNotNull(window.lookup("sub", "event-999", budget, 0), "the newest stays");
        assertNull(window.lookup("sub", "event-0", budget, 0), "the oldest went first");
        assertEquals(1_000 - window.size(), byBudget.get());
        window.clear();
        assertEquals(0, total.get());
    }

    @Test
    void aWindowMayUseWhatQuietWindowsLeaveWhileTheTotalIsWithinTheMaximum() {
        LedgerWindow busy = new LedgerWindow(TP, 0, total, 1 << 20, byHorizon, byBudget);
        for (int i = 0; i < 1_000; i++) {
            busy.apply(pair("event-" + i, DeliveryRecord.DELIVERED, 1_000 + i), true, 4_096, 0);
        }
        assertEquals(1_000, busy.size(), "over its share of 4 KiB, but all windows stay within 1 MiB");
        assertEquals(0, byBudget.get());
    }

    @Test
    void aResetMarkerDropsWhatTheLedgerSaidBeforeItButNotOwnWrites() {
        window.apply(pair("from-ledger", DeliveryRecord.DELIVERED, 1_000), false, 1 << 20, 0);
        window.apply(pair("own", DeliveryRecord.DELIVERED, 1_000), true, 1 << 20, 0);
        window.reset();
        assertNull(window.lookup("sub", "from-ledger", 1 << 20, 0));
        assertNotNull(window.lookup("sub", "own", 1 << 20, 0));
    }

    @Test
    void theLedgerPartitionOfASourcePartitionDoesNotMoveWhenPartitionsAreAdded() {
        for (int p = 0; p < 12; p++) {
            assertEquals(p, LedgerRecords.ledgerPartition(p, 12));
            assertEquals(p, LedgerRecords.ledgerPartition(p, 24), "after topics apply raised both to 24");
        }
        assertEquals(1, LedgerRecords.ledgerPartition(13, 12), "a ledger smaller than the source wraps");
    }
}
