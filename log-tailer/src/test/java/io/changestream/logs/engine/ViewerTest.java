package io.changestream.logs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.LogStreamEvent;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ViewerTest {

    private final LogMetrics metrics = LogMetrics.inMemory();

    @Test
    void aViewerPastItsBudgetIsTruncatedWithTheLastCursorItWasWrittenAndClosed() {
        ListSink sink = new ListSink();
        AtomicInteger gone = new AtomicInteger();
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        viewer.onGone(gone::incrementAndGet);
        assertTrue(viewer.send(LogStreamEvent.logs("r", "first\n", "6", false, false)));
        assertTrue(viewer.send(LogStreamEvent.logs("r", "second\n", "13", false, false)));
        sink.stalled = true;
        int sent = 0;
        while (viewer.send(LogStreamEvent.logs("r", "x".repeat(50), "100" + sent, false, false))) {
            sent++;
        }
        assertTrue(sent >= 2 && sent <= 3, "sent " + sent);
        assertFalse(viewer.isOpen());
        assertTrue(sink.closed);
        assertEquals(1, gone.get());
        assertEquals(1, metrics.droppedViewers());
        LogStreamEvent notice = sink.last();
        assertEquals(LogStreamEvent.EventType.LOGS, notice.eventType());
        assertEquals(Boolean.TRUE, notice.truncated());
        assertEquals("13", notice.after(), "the cursor of the last frame it got: resuming from it misses nothing");
        assertEquals("", notice.logs());
        assertTrue(notice.message().contains("stream.maxPendingBytesPerClient = 300"), notice.message());
        assertEquals("first\nsecond\n", sink.text());
        assertFalse(viewer.send(LogStreamEvent.logs("r", "late", "200", false, false)), "closed for good");
    }

    @Test
    void aViewerCutOffBeforeAnyFrameReachedItResumesFromTheCursorItCameWith() {
        ListSink sink = new ListSink();
        sink.stalled = true;
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        viewer.resumeFrom("42");
        assertTrue(viewer.cutOff(Viewer.Budget.GLOBAL, 1000));
        assertEquals("42", sink.last().after());
        assertTrue(sink.last().message().contains("stream.maxPendingBytesTotal = 1000"), sink.last().message());
        assertFalse(viewer.cutOff(Viewer.Budget.GLOBAL, 1000), "once");
        assertEquals(0, viewer.pendingBytes());
    }

    @Test
    void aViewerWithNothingPendingTakesAFrameLargerThanItsBudget() {
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        assertTrue(viewer.send(LogStreamEvent.logs("r", "y".repeat(5000), "5000", false, false)));
        assertTrue(viewer.isOpen());
        assertEquals("y".repeat(5000), sink.text());
    }

    @Test
    void pendingLimitCountsUtf8BytesNotCharacters() {
        ListSink sink = new ListSink();
        sink.stalled = true;
        // "é" is one char but two UTF-8 bytes: 60 chars -> ~120 bytes of payload per frame
        Viewer viewer = new Viewer("r", sink, 200, metrics);
        assertTrue(viewer.send(LogStreamEvent.logs("r", "é".repeat(60), "1", false, false)));
        assertFalse(viewer.send(LogStreamEvent.logs("r", "é".repeat(60), "2", false, false)),
                "two frames of >120 UTF-8 bytes exceed 200 although they are < 200 chars");
    }

    @Test
    void draininigViewerIsNeverDropped() {
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        for (int i = 0; i < 100; i++) {
            assertTrue(viewer.send(LogStreamEvent.logs("r", "x".repeat(50), "1", false, false)));
        }
        assertTrue(viewer.heartbeat());
        assertEquals(101, sink.frames.size());
    }

    @Test
    void heartbeatIsSentOncePerIntervalFromTheFirstCheck() {
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        viewer.heartbeatIfDue(0, 25);
        viewer.heartbeatIfDue(24, 25);
        assertTrue(sink.frames.isEmpty());
        viewer.heartbeatIfDue(25, 25);
        viewer.heartbeatIfDue(49, 25);
        assertEquals(1, sink.frames.size());
        viewer.heartbeatIfDue(50, 25);
        assertEquals(List.of(": heartbeat\n\n", ": heartbeat\n\n"), sink.frames);
    }
}
