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
    void stalledViewerIsDroppedAtThePendingLimitWithoutComplete() {
        ListSink sink = new ListSink();
        sink.stalled = true;
        AtomicInteger gone = new AtomicInteger();
        Viewer viewer = new Viewer("r", sink, 300, metrics);
        viewer.onGone(gone::incrementAndGet);
        int sent = 0;
        while (viewer.send(LogStreamEvent.logs("r", "x".repeat(50), "1", false, false))) {
            sent++;
        }
        assertTrue(sent >= 2 && sent <= 3, "sent " + sent);
        assertTrue(sink.aborted);
        assertFalse(viewer.isOpen());
        assertEquals(1, gone.get());
        assertEquals(1, metrics.droppedViewers());
        assertTrue(sink.frames.isEmpty(), "no complete event");
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
