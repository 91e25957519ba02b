package io.changestream.logs.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.engine.SourceUnavailableException;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pipeline-service source against a real local HTTP server that behaves like the chunked log API. */
class PipelineServiceLogSourceIT {

    private FakePipelineService service;
    private PipelineServiceLogSource source;

    @BeforeEach
    void start() throws IOException {
        service = new FakePipelineService();
        source = new PipelineServiceLogSource(HttpClient.newHttpClient(), service.base(), "svc.pipe", "scheduled__1",
                Duration.ofSeconds(5), null);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    @Test
    void onlyTheGrowthOfTheLastChunkIsEmitted() throws IOException {
        service.append("line 1\n");
        Page first = source.read(null, 1000, 1 << 20);
        assertEquals("line 1\n", first.text());
        assertEquals("0:7", first.cursorAfter());
        service.append("line 2\n");
        Page second = source.read(first.cursorAfter(), 1000, 1 << 20);
        assertEquals("line 2\n", second.text());
        assertEquals("0:14", second.cursorAfter());
        Page nothing = source.read(second.cursorAfter(), 1000, 1 << 20);
        assertTrue(nothing.isEmpty());
        assertEquals("0:14", nothing.cursorAfter());
    }

    @Test
    void neverAsksForAChunkTheBackendDidNotOffer() throws IOException {
        service.append("a\n");
        String cursor = null;
        for (int i = 0; i < 5; i++) {
            cursor = source.read(cursor, 1000, 1 << 20).cursorAfter();
        }
        assertTrue(service.asked.stream().allMatch(c -> c == 0), service.asked.toString());
        service.newChunk("b\n");
        Page rest = source.read(cursor, 1000, 1 << 20);
        assertEquals("", rest.text());
        assertEquals("1:0", rest.cursorAfter());
        assertTrue(rest.more());
        Page next = source.read(rest.cursorAfter(), 1000, 1 << 20);
        assertEquals("b\n", next.text());
        assertEquals("1:2", next.cursorAfter());
        source.read(next.cursorAfter(), 1000, 1 << 20);
        assertTrue(service.asked.stream().allMatch(c -> c <= 1), service.asked.toString());
    }

    @Test
    void aShrunkChunkIsReAnchoredWithoutResending() throws IOException {
        service.append("attempt 1 wrote a lot\n");
        Page first = source.read(null, 1000, 1 << 20);
        service.replaceLast("try 2\n");
        Page shrunk = source.read(first.cursorAfter(), 1000, 1 << 20);
        assertEquals("", shrunk.text());
        assertEquals("0:6", shrunk.cursorAfter());
        service.append("more\n");
        assertEquals("more\n", source.read(shrunk.cursorAfter(), 1000, 1 << 20).text());
    }

    @Test
    void backendErrorsAreNeverLogText() {
        service.append("ok\n");
        service.failWith = 500;
        assertThrows(IOException.class, () -> source.read(null, 1000, 1 << 20));
        service.failWith = 401;
        assertThrows(SourceUnavailableException.class, () -> source.read(null, 1000, 1 << 20));
    }

    @Test
    void badCursorRestartsFromTheFirstChunkFlagged() throws IOException {
        service.append("x\n");
        Page page = source.read("123", 1000, 1 << 20);
        assertTrue(page.restarted());
        assertEquals("x\n", page.text());
    }
}
