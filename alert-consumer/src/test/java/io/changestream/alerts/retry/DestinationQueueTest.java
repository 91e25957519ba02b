package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** One destination's retry records on one partition: bounded in memory, the rest left on the topic, in order. */
class DestinationQueueTest {

    private static RetryRecord record(long offset) {
        return new RetryRecord("g", "s", "e" + offset, "k", "d", "changes", 0, offset, "{}", 0, 0, 0, 0, "parked",
                null);
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

        q.settled(q.head());
        q.settled(q.head());
        assertEquals(15, q.firstOffset(), "then at the first record left on the topic");
        assertFalse(q.empty());
        q.refilled(15, record(15));
        q.leftFrom(-1);
        assertEquals(15, q.head().offset());
        assertFalse(q.offer(17, record(17), 2, true) && q.size() > 2);
    }

    @Test
    void withoutRoomOnlyTheHeadIsHeld() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        assertTrue(q.offer(1, record(1), 100, false), "a destination always holds its head");
        assertFalse(q.offer(2, record(2), 100, false));
        assertEquals(2, q.leftFrom());
    }

    @Test
    void oneWorkerAtATimeAndOnlyWhenTheHeadIsDue() {
        DestinationQueue q = new DestinationQueue(new TopicPartition("retry", 0), "d");
        assertFalse(q.claim(0), "nothing to try");
        q.offer(1, record(1), 10, true);
        assertTrue(q.claim(0));
        assertFalse(q.claim(0), "claimed already");
        q.unclaim(1_000, "Retry-After");
        assertFalse(q.claim(999), "not due yet");
        assertTrue(q.claim(1_000));
        q.unclaim(0, null);
        q.release();
        assertFalse(q.claim(5_000), "released with its partition");
        q.settled(q.head());
        assertNull(q.head());
        assertTrue(q.empty());
    }
}
