package io.changestream.logs.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The object-storage source with the real AWS SDK client against a real S3-protocol server (S3Mock). */
class ObjectStoreLogSourceIT {

    private static S3MockServer s3mock;
    private static ObjectStoreSettings settings;
    private static S3Client s3;

    @BeforeAll
    static void startS3() throws IOException {
        s3mock = S3MockServer.shared();
        settings = settings(s3mock.endpoint().toString(), Duration.ofSeconds(5));
        s3 = SourceResolver.client(settings);
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    static ObjectStoreSettings settings(String endpoint, Duration timeout) {
        return new ObjectStoreSettings(java.net.URI.create(endpoint), "us-east-1", S3MockServer.BUCKET,
                "pipeline-logs", true, "test-key", "test-secret", timeout);
    }

    /** Writes the object as the platform's S3LogStorage does on a flush: the whole content again. */
    static void flush(S3Client client, String key, String content) {
        client.putObject(b -> b.bucket(S3MockServer.BUCKET).key(key).contentType("text/plain"),
                RequestBody.fromString(content));
    }

    @Test
    void aGrowingObjectIsTailedByRangedReadsOfCompleteLinesOnly() throws IOException {
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, "mysql.ingest", "run-grow");
        assertEquals("pipeline-logs/mysql_ingest/run-grow/logs.txt", source.key());
        flush(s3, source.key(), "a\nb\n");
        Page first = source.read(null, 1000, 1 << 20);
        assertEquals("a\nb\n", first.text());
        assertEquals("4", first.cursorAfter());
        flush(s3, source.key(), "a\nb\nc is being writ");
        Page partial = source.read(first.cursorAfter(), 1000, 1 << 20);
        assertEquals("", partial.text());
        assertEquals("4", partial.cursorAfter());
        assertFalse(partial.more());
        flush(s3, source.key(), "a\nb\nc is being written\nd\n");
        Page rest = source.read(partial.cursorAfter(), 1000, 1 << 20);
        assertEquals("c is being written\nd\n", rest.text());
        Page nothing = source.read(rest.cursorAfter(), 1000, 1 << 20);
        assertTrue(nothing.isEmpty());
        assertEquals(rest.cursorAfter(), nothing.cursorAfter());
    }

    @Test
    void aCursorResumesExactlyAndPagesStopAtTheByteBudget() throws IOException {
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, "svc.pipe", "run-resume");
        flush(s3, source.key(), "one\ntwo\nthree\nfour\n");
        assertEquals("three\nfour\n", source.read("8", 1000, 1 << 20).text());
        Page small = source.read("0", 1000, 9);
        assertEquals("one\ntwo\n", small.text());
        assertTrue(small.more());
        assertEquals("three\n", source.read(small.cursorAfter(), 1, 1 << 20).text());
        Page bad = source.read("not-a-number", 1000, 1 << 20);
        assertTrue(bad.restarted());
        assertEquals("one\ntwo\nthree\nfour\n", bad.text());
    }

    @Test
    void aLineLongerThanTheBudgetIsCutAtACharacterBoundary() throws IOException {
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, "svc.pipe", "run-long");
        flush(s3, source.key(), "\u00e9\u00e9\u00e9\n");
        Page piece = source.read(null, 1000, 3);
        assertEquals("\u00e9", piece.text());
        assertEquals("2", piece.cursorAfter());
        assertTrue(piece.more());
    }

    @Test
    void aMissingObjectIsMissingNotAnError() {
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, "svc.pipe", "never-flushed");
        assertThrows(MissingLogException.class, () -> source.read(null, 1000, 1 << 20));
    }

    @Test
    void accessDeniedIsFatalAndASlowEndpointIsATransientTimeout() throws IOException {
        try (S3ErrorServer denied = new S3ErrorServer(0);
             S3Client client = SourceResolver.client(settings(denied.endpoint().toString(), Duration.ofSeconds(5)))) {
            ObjectStoreLogSource source = new ObjectStoreLogSource(client, settings, "svc.pipe", "r1");
            SourceUnavailableException e = assertThrows(SourceUnavailableException.class,
                    () -> source.read(null, 1000, 1 << 20));
            assertTrue(e.getMessage().contains("403"), e.getMessage());
        }
        try (S3ErrorServer slow = new S3ErrorServer(3000);
             S3Client client = SourceResolver.client(settings(slow.endpoint().toString(), Duration.ofMillis(400)))) {
            ObjectStoreLogSource source = new ObjectStoreLogSource(client, settings, "svc.pipe", "r1");
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> source.read(null, 1000, 1 << 20));
            assertFalse(e instanceof MissingLogException, e.toString());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(3).toNanos(), "bounded by s3.timeoutMillis");
        }
    }

    @Test
    void traversalInFqnOrRunIdIsRefusedAndTheFqnIsSanitisedAsThePlatformDoes() {
        assertThrows(IllegalArgumentException.class, () -> new ObjectStoreLogSource(s3, settings, "../x", "r1"));
        assertThrows(IllegalArgumentException.class, () -> new ObjectStoreLogSource(s3, settings, "svc", "a/../b"));
        assertThrows(IllegalArgumentException.class, () -> new ObjectStoreLogSource(s3, settings, "svc", ".."));
        assertEquals("pipeline-logs/svc_a_b_c/r1/logs.txt", settings.key("svc.a b/c".replace("/", "_"), "r1"));
    }

    @Test
    void recentRunsAreListedNewestFirst() throws Exception {
        try (SourceResolver resolver = new SourceResolver(null, settings, null)) {
            for (String run : List.of("old", "mid", "new")) {
                flush(s3, settings.key("svc.listed", run), run + "\n");
                Thread.sleep(1100); // S3 LastModified has one-second resolution
            }
            assertEquals(List.of("new", "mid", "old"), resolver.recentRuns("svc.listed", 10).stream()
                    .map(SourceResolver.RunRef::runId).toList());
            assertTrue(resolver.storageKnows("svc.listed"));
            assertFalse(resolver.storageKnows("svc.unknown"));
            assertEquals("s3", resolver.resolve("svc.listed", "new").orElseThrow().kind());
        }
    }

    @Test
    void aLiveRunIsReadFromPartialThenFromLogsAtTheSameOffsetOnceItIsGone() throws IOException {
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, "svc.pipe", "run-handover");
        assertEquals("pipeline-logs/svc_pipe/run-handover/partial.txt", source.liveKey());
        flush(s3, source.liveKey(), "a\nb\n");
        Page live = source.read(null, 1000, 1 << 20);
        assertEquals("a\nb\n", live.text());
        assertEquals(source.liveKey(), source.readingKey());
        flush(s3, source.key(), "a\nb\nc\n");
        s3.deleteObject(b -> b.bucket(S3MockServer.BUCKET).key(source.liveKey()));
        Page switched = source.read(live.cursorAfter(), 1000, 1 << 20);
        assertEquals("c\n", switched.text());
        assertEquals("6", switched.cursorAfter());
        assertEquals(source.key(), source.readingKey());
        assertTrue(source.read(switched.cursorAfter(), 1000, 1 << 20).isEmpty());
    }

    @Test
    void readsPastMaxConcurrentReadsFailTransientlyNamingTheSetting() throws IOException {
        ReadGate gate = new ReadGate(new ReadLimits("s3", 10, 1, 1 << 20));
        ObjectStoreLogSource source = new ObjectStoreLogSource(s3, settings, gate, "svc.pipe", "run-gated");
        flush(s3, source.liveKey(), "x\n");
        gate.enter();
        ReadLimitException.Busy busy = assertThrows(ReadLimitException.Busy.class, () -> source.read(null, 10, 100));
        assertTrue(busy.getMessage().contains("s3.maxConcurrentReads = 1"), busy.getMessage());
        gate.exit();
        assertEquals("x\n", source.read(null, 10, 100).text());
        assertEquals(0, gate.inFlight());
    }
}
