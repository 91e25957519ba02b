package io.changestream.alerts.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DigestRecord;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** A digest window counts each event once: a repeated member (same event id) is not counted or listed again. */
class DigestWindowTest {

    private static ChangeEvent event(String id) {
        return new ChangeEvent(id, ChangeEvent.ENTITY_UPDATED, "table", "e-" + id, null, "svc.db.t", null, null,
                "alice", null, 1_700_000_000_000L, null, null, null);
    }

    private static DigestRecord entry(String id) {
        return new DigestRecord(DigestRecord.ENTRY, "sub", "", event(id), "cs.changes", 0, 1L, null, null, null,
                null, null, 1_700_000_000_000L);
    }

    private static ConsumerRecord<String, String> at(long offset) {
        return new ConsumerRecord<>("cs.alert-digest", 0, offset, "sub", "{}");
    }

    @Test
    void aRepeatedMemberIsCountedAndListedOnceAndStillMovesTheLastOffset() {
        DigestWindow w = new DigestWindow("sub", "", "sub/");
        AtomicLong budget = new AtomicLong();
        assertTrue(w.add(at(10), entry("a"), 10, budget, 1 << 20));
        assertTrue(w.add(at(11), entry("b"), 10, budget, 1 << 20));
        assertFalse(w.add(at(12), entry("a"), 10, budget, 1 << 20), "a repeat of a (an append written twice)");
        assertEquals(2, w.total);
        assertEquals(2, w.events.size());
        assertEquals(1, w.counts.size());
        assertEquals(2, w.counts.get("table entityUpdated"));
        assertEquals(12, w.lastOffset, "the window's end still moves past the repeat");
    }
}
