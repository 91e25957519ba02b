package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * One destination's retry records on one partition: bounded in memory, the rest left on the topic; tried several at
 * once but in order per entity; settled out of order, drained without a gap.
 */
class DestinationQueueTest {

    private static RetryRecord record(long offset) {
        return record(offset, "entity-" + offset);
    }

    private static RetryRecord record(long offset, String entity) {
        return new RetryRecord("g", "s", "e" + offset, "k", "d", "changes", 0, offset, "{}", 0, 0, 0, 0, "parked",
                null, entity);
    }

    private static List<Long> offsets(List<DestinationQueue.Held> held) {
        return held.stream().map(DestinationQueue.Held::offset).toList();
    }

    @Test
    void beyondItsBoundTheRestStaysOnTheTopicFromTheFirstNotHeld() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 3), "d");
        assertTrue(q.offer(10, record(10), 2, true));
        assertTrue(q.offer(12, record(12), 2, true));
        assertFalse(q.offer(15, record(15), 2, true), "full: left on the topic");
        assertFalse(q.offer(16, record(16), 2, true), "after one left, every later one is left too (order)");
        assertEquals(15, q.leftFrom());
        assertEquals(10, q.firstOffset(), "the commit stops at the head");

        for (DestinationQueue.Held h : q.claim(0, 8)) {
            q.finished(h, true, 0, null);
        }
        assertEquals(15, q.firstOffset(), "then at the first record left on the topic");
        assertFalse(q.empty());
        q.refilled(15, record(15));
        q.leftFrom(-1);
        assertEquals(15, q.head().offset());
    }

    @Test
    void withoutRoomOnlyTheHeadIsHeld() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        assertTrue(q.offer(1, record(1), 100, false), "a destination always holds its head");
        assertFalse(q.offer(2, record(2), 100, false));
        assertEquals(2, q.leftFrom());
    }

    @Test
    void recordsOfDifferentEntitiesGoTogetherAndOneEntitysWaitForItsEarlierOne() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        q.offer(1, record(1, "a"), 100, true);
        q.offer(2, record(2, "b"), 100, true);
        q.offer(3, record(3, "a"), 100, true);
        q.offer(4, record(4, "c"), 100, true);
        q.offer(5, record(5, "d"), 100, true);
        List<DestinationQueue.Held> first = q.claim(0, 3);
        assertEquals(List.of(1L, 2L, 4L), offsets(first), "a's second waits for its first; at most three at once");
        assertEquals(List.of(), q.claim(0, 3), "all three slots taken");

        DestinationQueue.Held one = first.get(0);
        DestinationQueue.Held two = first.get(1);
        DestinationQueue.Held four = first.get(2);
        assertEquals(-1, q.finished(two, true, 0, null), "settled out of order: the head (1) did not move");
        assertEquals(List.of(5L), offsets(q.claim(0, 3)), "3 still waits for 1 of its entity");
        assertEquals(2, q.finished(one, true, 0, null), "1 and 2 settled without a gap: drained to 2");
        assertEquals(List.of(3L), offsets(q.claim(0, 3)));
        assertEquals(-1, q.finished(four, true, 0, null));
        assertEquals(3, q.firstOffset(), "the commit stops at the first record not settled");
    }

    @Test
    void pastTheBoundOfOffsetsSettledAboveAnUnsettledOneOnlyTheFirstStarts() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        int bound = DestinationStates.MAX_SETTLED_ABOVE;
        for (long o = 0; o <= bound + 2; o++) {
            q.offer(o, record(o), 1_000, true);
        }
        DestinationQueue.Held head = q.claim(0, 1).get(0);
        assertEquals(0, head.offset());
        for (int i = 0; i < bound - 1; i++) { // the running head counts: at most bound - 1 settle above it
            List<DestinationQueue.Held> next = q.claim(0, 2);
            assertEquals(1, next.size(), "one slot beside the hanging head");
            assertEquals(-1, q.finished(next.get(0), true, 0, null), "settled above the head");
        }
        q.finished(head, false, 0, "timeout"); // the head did not settle: it may start again at once
        assertEquals(List.of(0L), offsets(q.claim(0, 8)),
                (bound - 1) + " settled above the first unsettled one: nothing else starts before it settles");
    }

    @Test
    void offsetsAnEarlierOwnerSettledAboveCountTowardsTheBound() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        for (long o = 0; o < 10; o++) {
            q.offer(o, record(o), 1_000, true);
        }
        int bound = DestinationStates.MAX_SETTLED_ABOVE;
        assertEquals(List.of(0L, 1L), offsets(q.claim(0, 8, bound - 2)), "room for two beside what is published");
        assertEquals(List.of(), q.claim(0, 8, bound - 2), "the head runs: nothing else starts");
    }

    @Test
    void aTryThatDoesNotSettlePausesTheWholeQueueUntilItsDueTime() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        q.offer(1, record(1, "a"), 100, true);
        q.offer(2, record(2, "b"), 100, true);
        List<DestinationQueue.Held> both = q.claim(0, 1);
        assertEquals(List.of(1L), offsets(both));
        q.finished(both.get(0), false, 1_000, "HTTP 503");
        assertEquals(List.of(), q.claim(999, 8), "the destination's trouble holds its other records too");
        assertEquals("HTTP 503", q.reason());
        assertEquals(List.of(1L, 2L), offsets(q.claim(1_000, 8)));
    }

    @Test
    void aRecordWithoutAnOrderKeyGoesAloneAfterEveryEarlierOne() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        q.offer(1, record(1, "a"), 100, true);
        q.offer(2, record(2, null), 100, true);
        q.offer(3, record(3, "b"), 100, true);
        List<DestinationQueue.Held> first = q.claim(0, 8);
        assertEquals(List.of(1L), offsets(first), "nothing passes a record written without an order key");
        q.finished(first.get(0), true, 0, null);
        List<DestinationQueue.Held> second = q.claim(0, 8);
        assertEquals(List.of(2L), offsets(second), "then it goes alone");
        assertEquals(List.of(), q.claim(0, 8));
        q.finished(second.get(0), true, 0, null);
        assertEquals(List.of(3L), offsets(q.claim(0, 8)));
    }

    @Test
    void aReleasedQueueStartsNothingAndAnEmptyOneCanGo() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        assertEquals(List.of(), q.claim(0, 8), "nothing to try");
        q.offer(1, record(1), 10, true);
        List<DestinationQueue.Held> h = q.claim(0, 8);
        assertEquals(1, q.running());
        assertFalse(q.empty(), "a try runs");
        q.finished(h.get(0), false, 0, null);
        q.release();
        assertEquals(List.of(), q.claim(5_000, 8), "released with its partition");
        q.finished(q.head(), true, 0, null);
        assertNull(q.head());
        assertTrue(q.empty());
    }

    /** Decision 2302: a stop cancels the tries still running; a try that ended is no longer tracked. */
    @Test
    void cancelRunningCancelsOnlyTheTriesStillRunning() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 3), "d");
        java.util.concurrent.CompletableFuture<String> hanging = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<String> ended = new java.util.concurrent.CompletableFuture<>();
        q.track(hanging);
        q.track(ended);
        ended.complete("settled");
        assertEquals(1, q.cancelRunning(), "only the running try");
        assertTrue(hanging.isCancelled());
        assertEquals(0, q.cancelRunning(), "a cancelled try is no longer tracked");
    }
}
