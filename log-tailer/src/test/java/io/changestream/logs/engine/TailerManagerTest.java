package io.changestream.logs.engine;

import io.changestream.logs.source.ChangeWatch;
import io.changestream.logs.source.SourceUnavailableException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.LogMetrics.Refusal;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.LogStreamEvent.EventType;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TailerManagerTest {

    private final LogMetrics metrics = LogMetrics.inMemory();
    private TailerManager manager;

    private TailerManager manager(int runs, int connections) {
        return manager(runs, connections, 256L << 20);
    }

    private TailerManager manager(int runs, int connections, long pendingTotal) {
        StreamSettings settings = new StreamSettings(Duration.ofMillis(20), 1000, 20, 1 << 20, 32 << 20, 3600, 300,
                10, 60, 10, 256 << 10, 4 << 20, runs, connections, 25, pendingTotal);
        manager = new TailerManager(settings, new FakeClock(), RunStateView.NONE, ChunkPublisher.NONE, Replayer.NONE,
                Runnable::run, ChangeWatch.NONE, metrics);
        return manager;
    }

    @AfterEach
    void close() {
        manager.close();
    }

    private ListSink open(String runId, ScriptedSource source, String after) {
        ListSink sink = new ListSink();
        manager.open("svc.pipe", runId, source, after, new Viewer(runId, sink, 4 << 20, metrics));
        return sink;
    }

    @Test
    void twoViewersOfOneRunShareOneTailerAndOneReadPerTick() {
        manager(10, 10);
        ScriptedSource source = new ScriptedSource();
        ListSink one = open("r1", source, null);
        ListSink two = open("r1", source, null);
        assertEquals(1, manager.activeRuns());
        assertEquals(2, manager.activeConnections());
        source.append("hello");
        await().atMost(Duration.ofSeconds(5)).until(() -> one.text().equals("hello\n") && two.text().equals("hello\n"));
        await().atMost(Duration.ofSeconds(5)).until(() -> metrics.polls() >= 10);
        manager.close();
        assertEquals(metrics.polls(), source.reads.get(), "exactly one backend read per tick");
    }

    @Test
    void overTheRunCapTheViewerGetsAnErrorEventAndIsClosed() {
        manager(1, 10);
        open("r1", new ScriptedSource(), null);
        ListSink refused = open("r2", new ScriptedSource(), "0");
        assertEquals(EventType.ERROR, refused.last().eventType());
        assertEquals(TailerManager.TOO_MANY_RUNS, refused.last().message());
        assertEquals("0", refused.last().after());
        assertTrue(refused.closed);
        assertEquals(1, metrics.refusals(Refusal.TOO_MANY_RUNS));
        assertEquals(1, manager.activeConnections());
    }

    @Test
    void overTheConnectionCapTheViewerGetsAnErrorEventAndIsClosed() {
        manager(10, 1);
        ScriptedSource source = new ScriptedSource();
        open("r1", source, null);
        ListSink refused = open("r1", source, null);
        assertEquals(TailerManager.TOO_MANY_CONNECTIONS, refused.last().message());
        assertTrue(refused.closed);
        assertEquals(1, metrics.refusals(Refusal.TOO_MANY_CONNECTIONS));
    }

    @Test
    void aFailedPollFreesTheRunSlotForTheNextRequest() {
        manager(1, 10);
        ScriptedSource broken = new ScriptedSource();
        broken.fatalFailure = new SourceUnavailableException("gone");
        ListSink sink = open("r1", broken, null);
        await().atMost(Duration.ofSeconds(5)).until(() -> sink.closed);
        assertEquals(EventType.ERROR, sink.last().eventType());
        await().atMost(Duration.ofSeconds(5)).until(() -> manager.activeRuns() == 0 && manager.activeConnections() == 0);
        ScriptedSource healthy = new ScriptedSource();
        healthy.append("ok");
        ListSink next = open("r2", healthy, null);
        await().atMost(Duration.ofSeconds(5)).until(() -> next.text().equals("ok\n"));
    }

    @Test
    void lastViewerLeavingStopsReading() {
        manager(10, 10);
        ScriptedSource source = new ScriptedSource();
        ListSink sink = new ListSink();
        Viewer viewer = new Viewer("r1", sink, 4 << 20, metrics);
        manager.open("svc.pipe", "r1", source, null, viewer);
        await().atMost(Duration.ofSeconds(5)).until(() -> source.reads.get() >= 2);
        viewer.transportClosed();
        assertEquals(0, manager.activeRuns());
        assertEquals(0, manager.activeConnections());
        int reads = source.reads.get();
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> source.reads.get() <= reads + 1);
    }

    @Test
    void pastTheGlobalBudgetTheViewersFurthestBehindAreTruncatedWithTheirCursorAndTheOthersGoOn() {
        manager(10, 10, 4 << 20);
        ScriptedSource source = new ScriptedSource();
        ListSink reading = open("r1", source, null);
        ListSink stalledFirst = open("r1", source, null);
        ListSink stalledLater = open("r1", source, null);
        stalledFirst.stalled = true;
        source.append("a".repeat(100));
        await().atMost(Duration.ofSeconds(5)).until(() -> stalledLater.text().length() == 101);
        stalledLater.stalled = true;
        String line = "b".repeat(64 << 10);
        for (int i = 0; i < 40; i++) {
            source.append(line);
        }
        // 40 x 64 KiB behind for the first, 40 x 64 KiB for the later: 5 MiB together, past 4 MiB
        await().atMost(Duration.ofSeconds(10)).until(() -> stalledFirst.closed);
        LogStreamEvent notice = stalledFirst.last();
        assertEquals(Boolean.TRUE, notice.truncated());
        assertEquals(source.startCursor(), notice.after(), "nothing reached it: it resumes from where it began");
        assertTrue(notice.message().contains("stream.maxPendingBytesTotal = 4194304"), notice.message());
        await().atMost(Duration.ofSeconds(10)).until(() -> reading.text().length() == 101 + 40 * ((64 << 10) + 1));
        assertTrue(!reading.closed && !stalledLater.closed, "one cut was enough to be within the budget");
        assertEquals(2, manager.activeConnections());
        assertEquals(1, metrics.droppedViewers());
    }

    @Test
    void pastItsBackendsMaxActiveRunsANewRunGetsAnErrorNamingTheSettingWhileViewersOfPolledRunsJoin() {
        manager(10, 10);
        ScriptedSource first = new ScriptedSource();
        first.maxActiveRuns = 1;
        open("r1", first, null);
        ScriptedSource second = new ScriptedSource();
        second.maxActiveRuns = 1;
        ListSink refused = open("r2", second, null);
        assertEquals(EventType.ERROR, refused.last().eventType());
        assertTrue(refused.last().message().contains("scripted.maxActiveRuns = 1"), refused.last().message());
        assertEquals(1, metrics.refusals(Refusal.TOO_MANY_BACKEND_RUNS));
        ListSink joining = open("r1", first, null);
        assertTrue(!joining.closed, "a run already polled costs no new poller");
        assertEquals(1, manager.activeRuns());
    }
}
