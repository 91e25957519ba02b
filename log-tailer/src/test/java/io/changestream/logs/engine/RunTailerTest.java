package io.changestream.logs.engine;

import io.changestream.logs.source.SourceUnavailableException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.LogMetrics.ReplayKind;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EndReason;
import io.changestream.topics.model.LogStreamEvent.EventType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RunTailerTest {

    private final FakeClock clock = new FakeClock();
    private final ScriptedSource source = new ScriptedSource();
    private final LogMetrics metrics = LogMetrics.inMemory();
    private final AtomicReference<RunState> state = new AtomicReference<>(RunState.RUNNING);
    private final AtomicInteger probes = new AtomicInteger();
    private final AtomicInteger terminations = new AtomicInteger();
    private final List<LogChunk> published = new ArrayList<>();
    private StreamSettings settings = StreamSettings.defaults();

    private final RunStateView states = new RunStateView() {
        @Override
        public RunState state(String fqn, String runId) {
            probes.incrementAndGet();
            RunState s = state.get();
            if (s == null) {
                throw new IllegalStateException("status store not ready");
            }
            return s;
        }

        @Override
        public boolean knowsPipeline(String fqn) {
            return true;
        }

        @Override
        public Optional<String> latestRun(String fqn) {
            return Optional.empty();
        }
    };

    private RunTailer tailer(String start) {
        return new RunTailer("svc.pipe", "run-1", source, start, states, settings, clock, metrics, published::add,
                terminations::incrementAndGet);
    }

    private ListSink attach(RunTailer tailer, String after) {
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("run-1", sink, settings.maxPendingBytesPerClient(), metrics);
        viewer.onGone(() -> tailer.detach(viewer));
        assertInstanceOf(RunTailer.Attached.class, tailer.attach(viewer, after));
        return sink;
    }

    @Test
    void everyLogLineOfAReadCarriesThePipelineAndRunInTheMdc() {
        List<String> seen = new ArrayList<>();
        RunTailer tailer = new RunTailer("svc.pipe", "run-1", source, null, states, settings, clock, metrics,
                chunk -> seen.add(org.slf4j.MDC.get("pipelineFqn") + "/" + org.slf4j.MDC.get("runId")),
                terminations::incrementAndGet);
        attach(tailer, null);
        source.append("a");
        tailer.poll();
        assertEquals(List.of("svc.pipe/run-1"), seen, "the read (and what it logs) runs with the run's MDC");
        assertEquals(null, org.slf4j.MDC.get("runId"), "the MDC is cleared after the read");
    }

    @Test
    void newContentIsDeliveredAsItAppears() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.append("a", "b");
        tailer.poll();
        source.append("c");
        tailer.poll();
        assertEquals("a\nb\nc\n", sink.text());
        assertEquals(List.of("2", "3"), sink.events().stream().map(LogStreamEvent::after).toList());
        assertEquals(2, published.size());
        assertEquals("2", published.get(1).cursorBefore());
        assertEquals("3", published.get(1).cursorAfter());
    }

    @Test
    void threeViewersShareOneReadPerTick() {
        RunTailer tailer = tailer(null);
        ListSink one = attach(tailer, null);
        ListSink two = attach(tailer, null);
        ListSink three = attach(tailer, null);
        source.append("x");
        tailer.poll();
        tailer.poll();
        assertEquals(2, source.reads.get());
        for (ListSink sink : List.of(one, two, three)) {
            assertEquals("x\n", sink.text());
        }
    }

    @Test
    void lateJoinerGetsTheBufferFlaggedReplay() {
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        source.append("a");
        tailer.poll();
        ListSink late = attach(tailer, null);
        assertEquals(List.of(LogStreamEvent.logs("run-1", "a\n", "1", true, false)), late.events());
        assertEquals(1, metrics.replays(ReplayKind.MEMORY));
    }

    @Test
    void resumeDeliversOnlyWhatWasMissedAndCaughtUpViewerGetsNothing() {
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        source.append("a");
        tailer.poll();
        source.append("b");
        tailer.poll();
        source.append("c");
        tailer.poll();
        ListSink resumed = attach(tailer, "1");
        assertEquals("b\nc\n", resumed.text());
        ListSink caughtUp = attach(tailer, "3");
        assertTrue(caughtUp.frames.isEmpty());
    }

    @Test
    void foreignCursorWithoutDurableReplayGetsTruncatedThenTheWholeBuffer() {
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        source.append("a", "b");
        tailer.poll();
        ListSink foreign = new ListSink();
        Viewer viewer = new Viewer("run-1", foreign, settings.maxPendingBytesPerClient(), metrics);
        RunTailer.NeedsReplay plan = assertInstanceOf(RunTailer.NeedsReplay.class, tailer.attach(viewer, "elsewhere"));
        source.append("live");
        tailer.poll();
        assertTrue(foreign.frames.isEmpty(), "live frames are held until the replay is decided");
        tailer.completeReplay(viewer, plan, Replayer.Result.NOT_FOUND);
        List<LogStreamEvent> events = foreign.events();
        assertEquals(Boolean.TRUE, events.get(0).truncated());
        assertEquals("0", events.get(0).after());
        assertEquals("a\nb\n", events.get(1).logs());
        assertEquals(Boolean.TRUE, events.get(1).replay());
        assertEquals("live\n", events.get(2).logs());
        assertEquals(1, metrics.replays(ReplayKind.TRUNCATED));
    }

    @Test
    void cursorOlderThanTheBufferIsReplayedExactlyFromDurableChunks() {
        settings = new StreamSettings(Duration.ofSeconds(2), 1, 20, 1 << 20, 32 << 20, 3600, 300, 10, 60, 10, 4,
                4 << 20, 200, 500, 25, 256L << 20);
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        source.append("a", "b", "c", "d");
        tailer.poll();
        // buffer holds only the newest chunk (4 bytes): "d\n"; "a".."c" went to the durable chunks
        ListSink old = new ListSink();
        Viewer viewer = new Viewer("run-1", old, settings.maxPendingBytesPerClient(), metrics);
        RunTailer.NeedsReplay plan = assertInstanceOf(RunTailer.NeedsReplay.class, tailer.attach(viewer, "1"));
        Replayer fromPublished = (fqn, run, from, stops, max) -> {
            List<LogChunk> chain = new ArrayList<>();
            String at = from;
            while (!stops.contains(at)) {
                String cursor = at;
                LogChunk next = published.stream().filter(c -> cursor.equals(c.cursorBefore())).findFirst()
                        .orElseThrow();
                chain.add(next);
                at = next.cursorAfter();
            }
            return new Replayer.Result(chain, at);
        };
        tailer.completeReplay(viewer, plan, fromPublished.replay("svc.pipe", "run-1", "1", plan.stopCursors(), 1000));
        assertEquals("b\nc\nd\n", old.text());
        assertTrue(old.events().stream().noneMatch(e -> Boolean.TRUE.equals(e.truncated())));
        assertEquals(1, metrics.replays(ReplayKind.KAFKA));
    }

    @Test
    void badStartCursorRestartsFromZeroFlaggedTruncated() {
        RunTailer tailer = tailer("garbage");
        ListSink sink = attach(tailer, "garbage");
        source.append("a");
        tailer.poll();
        LogStreamEvent first = sink.events().get(0);
        assertEquals(Boolean.TRUE, first.truncated());
        assertEquals("a\n", first.logs());
        assertEquals("1", first.after());
    }

    @Test
    void finishedRunThatGoesQuietEndsWithRunFinishedAndClosesTheSink() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.append("a");
        tailer.poll();
        state.set(RunState.FINISHED);
        clock.advanceSeconds(9);
        tailer.poll();
        assertFalse(tailer.isTerminated());
        clock.advanceSeconds(1);
        tailer.poll();
        LogStreamEvent last = sink.last();
        assertEquals(EventType.COMPLETE, last.eventType());
        assertEquals(EndReason.RUN_FINISHED, last.reason());
        assertEquals("1", last.after());
        assertTrue(sink.closed);
        assertEquals(1, terminations.get());
    }

    @Test
    void runningRunStaysOpenUntilIdleTimeout() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        clock.advanceSeconds(299);
        tailer.poll();
        assertFalse(tailer.isTerminated());
        clock.advanceSeconds(1);
        tailer.poll();
        assertEquals(EndReason.IDLE_TIMEOUT, sink.last().reason());
    }

    @Test
    void unknownRunGetsTheLongerGrace() {
        state.set(RunState.UNKNOWN);
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        clock.advanceSeconds(59);
        tailer.poll();
        assertFalse(tailer.isTerminated());
        clock.advanceSeconds(1);
        tailer.poll();
        assertEquals(EndReason.RUN_FINISHED, sink.last().reason());
    }

    @Test
    void lifetimeCapEndsWithMaxDuration() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        for (int i = 0; i < 13; i++) {
            source.append("line " + i);
            clock.advanceSeconds(290);
            tailer.poll();
        }
        assertEquals(EndReason.MAX_DURATION, sink.last().reason());
        assertTrue(sink.last().message().contains("stream.maxStreamSeconds"), sink.last().message());
    }

    @Test
    void lateJoinerKeepsItsOwnHourWhileTheFirstViewerReachesItsCap() {
        RunTailer tailer = tailer(null);
        ListSink first = attach(tailer, null);
        source.append("early");
        clock.advanceSeconds(3540);
        tailer.poll();
        ListSink late = attach(tailer, "1");
        clock.advanceSeconds(60);
        source.append("at the hour");
        tailer.poll();
        assertEquals(EndReason.MAX_DURATION, first.last().reason());
        assertEquals("2", first.last().after());
        assertTrue(first.closed);
        assertFalse(late.closed);
        assertFalse(tailer.isTerminated());
        clock.advanceSeconds(3539);
        source.append("59 minutes later");
        tailer.poll();
        assertEquals("at the hour\n59 minutes later\n", late.text());
        assertFalse(late.closed);
        clock.advanceSeconds(1);
        tailer.poll();
        assertEquals(EndReason.MAX_DURATION, late.last().reason());
        assertTrue(tailer.isTerminated());
    }

    @Test
    void byteCapEndsWithMaxBytes() {
        settings = new StreamSettings(Duration.ofSeconds(2), 1000, 20, 1 << 20, 10, 3600, 300, 10, 60, 10,
                256 << 10, 4 << 20, 200, 500, 25, 256L << 20);
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.append("0123456789");
        tailer.poll();
        assertEquals(EndReason.MAX_BYTES, sink.last().reason());
        assertTrue(sink.last().message().contains("stream.maxStreamBytes"), sink.last().message());
    }

    @Test
    void lateJoinerKeepsItsOwnBytes() {
        settings = new StreamSettings(Duration.ofSeconds(2), 1000, 20, 1 << 20, 300, 3600, 300, 10, 60, 10,
                256 << 10, 4 << 20, 200, 500, 25, 256L << 20);
        RunTailer tailer = tailer(null);
        ListSink first = attach(tailer, null);
        for (int i = 0; i < 2; i++) {
            source.append("x".repeat(60));
            tailer.poll();
        }
        ListSink late = attach(tailer, "2");
        source.append("y".repeat(60));
        tailer.poll();
        assertEquals(EndReason.MAX_BYTES, first.last().reason());
        assertFalse(late.closed);
        source.append("z".repeat(60));
        tailer.poll();
        assertFalse(late.closed, "the late joiner was sent two frames, under its own 300 bytes");
        source.append("w".repeat(60));
        tailer.poll();
        assertEquals(EndReason.MAX_BYTES, late.last().reason());
    }

    @Test
    void runStateIsProbedAtMostOncePerRunProbeSecondsAndNeverAfterFinished() {
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        tailer.poll();
        tailer.poll();
        assertEquals(1, probes.get());
        clock.advanceSeconds(9);
        tailer.poll();
        assertEquals(1, probes.get());
        clock.advanceSeconds(1);
        state.set(RunState.FINISHED);
        tailer.poll();
        assertEquals(2, probes.get());
        clock.advanceSeconds(5);
        tailer.poll();
        clock.advanceSeconds(4);
        tailer.poll();
        assertEquals(2, probes.get());
    }

    @Test
    void failedStateLookupDoesNotEndTheStream() {
        state.set(null);
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        clock.advanceSeconds(100);
        tailer.poll();
        assertFalse(tailer.isTerminated());
    }

    @Test
    void transientReadErrorKeepsTheStream() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.transientFailure = new IOException("connection reset");
        tailer.poll();
        assertFalse(tailer.isTerminated());
        source.transientFailure = null;
        source.append("back");
        tailer.poll();
        assertEquals("back\n", sink.text());
    }

    @Test
    void fatalReadErrorEndsWithAnErrorEventAndFreesTheSlot() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.fatalFailure = new SourceUnavailableException("The log of this run is no longer in storage.");
        tailer.poll();
        assertEquals(EventType.ERROR, sink.last().eventType());
        assertEquals("0", sink.last().after());
        assertTrue(sink.closed);
        assertEquals(1, terminations.get());
    }

    @Test
    void pollThatThrowsUnexpectedlyClosesTheStreamAndFreesTheSlot() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.fatalFailure = new IllegalStateException("bug");
        tailer.poll();
        assertEquals(EventType.ERROR, sink.last().eventType());
        assertTrue(tailer.isTerminated());
        assertEquals(1, terminations.get());
    }

    @Test
    void backendIsNotReadAfterTheLastViewerLeaves() {
        RunTailer tailer = tailer(null);
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("run-1", sink, settings.maxPendingBytesPerClient(), metrics);
        tailer.attach(viewer, null);
        tailer.poll();
        tailer.detach(viewer);
        tailer.poll();
        assertEquals(1, source.reads.get());
        assertEquals(1, terminations.get());
        assertInstanceOf(RunTailer.Ended.class, tailer.attach(viewer, null));
    }

    @Test
    void backlogIsReadAtMostMaxReadsPerTickPages() {
        settings = new StreamSettings(Duration.ofSeconds(2), 10, 3, 1 << 20, 32 << 20, 3600, 300, 10, 60, 10,
                256 << 10, 4 << 20, 200, 500, 25, 256L << 20);
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        for (int i = 0; i < 100; i++) {
            source.append("l" + i);
        }
        tailer.poll();
        assertEquals(3, source.reads.get());
        assertEquals("30", tailer.cursor());
        tailer.poll();
        assertEquals("60", tailer.cursor());
        assertEquals(6, sink.events().size());
        assertEquals(3.0, metrics.registry().get("logtailer.poll.reads").summary().max());
        assertEquals(6.0, metrics.registry().get("logtailer.poll.reads").summary().totalAmount());
    }

    @Test
    void backlogIsReadAtMostMaxBytesPerTick() {
        settings = new StreamSettings(Duration.ofSeconds(2), 1, 20, 10, 32 << 20, 3600, 300, 10, 60, 10,
                256 << 10, 4 << 20, 200, 500, 25, 256L << 20);
        RunTailer tailer = tailer(null);
        attach(tailer, null);
        for (int i = 0; i < 10; i++) {
            source.append("abcd");
        }
        tailer.poll();
        assertEquals("2", tailer.cursor(), "two 5-byte lines fill the 10-byte tick budget");
    }

    @Test
    void everyEventCarriesACursor() {
        RunTailer tailer = tailer(null);
        ListSink sink = attach(tailer, null);
        source.append("a");
        tailer.poll();
        state.set(RunState.FINISHED);
        clock.advanceSeconds(10);
        tailer.poll();
        assertTrue(sink.events().stream().allMatch(e -> e.after() != null && e.runId() != null));
        assertNull(sink.events().get(0).truncated());
    }
}
