package io.changestream.logs.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Airflow plugin source against a local server speaking {@code last_dag_logs} byte for byte. */
class AirflowLogSourceIT {

    private static final String DAG = "mysql_prod_metadata";
    private static final String TASK = "ingestion_task";
    private static final String FQN = "mysql_prod." + DAG;

    private final HttpClient http = HttpClient.newHttpClient();
    private AirflowPluginServer airflow;
    private AirflowLogSource source;

    @BeforeEach
    void start() throws IOException {
        airflow = new AirflowPluginServer();
        source = source(AirflowPluginServer.USER, AirflowPluginServer.PASSWORD, null, Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        airflow.close();
    }

    private AirflowLogSource source(String user, String password, String token, Duration timeout) {
        return new AirflowLogSource(http, new AirflowSettings(airflow.base(), "api/v1/openmetadata", TASK, user,
                password, token, timeout), FQN);
    }

    @Test
    void theLocalServerAnswersAsTheFlaskPluginDoes() throws Exception {
        airflow.append(DAG, TASK, "caf\u00e9 \"ok\"\n");
        airflow.newChunk(DAG, TASK, "second\n");
        HttpRequest.Builder get = HttpRequest.newBuilder().header("Authorization", "Bearer "
                + AirflowPluginServer.TOKEN);
        String base = airflow.base() + "/api/v1/openmetadata/last_dag_logs?dag_id=" + DAG + "&task_id=" + TASK;
        HttpResponse<String> first = http.send(get.uri(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"after\":1,\"ingestion_task\":\"caf\\u00e9 \\\"ok\\\"\\n\",\"total\":2}\n", first.body());
        assertEquals("application/json", first.headers().firstValue("Content-Type").orElseThrow());
        HttpResponse<String> last = http.send(get.uri(URI.create(base + "&after=1")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"ingestion_task\":\"second\\n\",\"total\":2}\n", last.body());
        HttpResponse<String> past = http.send(get.uri(URI.create(base + "&after=2")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, past.statusCode());
        assertEquals("{\"error\":\"After index 2 is out of bounds. Total pagination is 2 for DAG " + DAG
                + " and Task " + TASK + ".\"}\n", past.body());
    }

    @Test
    void theGrowthOfTheLastChunkIsReadAndNothingTwice() throws IOException {
        airflow.append(DAG, TASK, "line 1\n");
        Page first = source.read(null, 1000, 1 << 20);
        assertEquals("line 1\n", first.text());
        assertEquals("0:7", first.cursorAfter());
        airflow.append(DAG, TASK, "line 2\n");
        Page second = source.read(first.cursorAfter(), 1000, 1 << 20);
        assertEquals("line 2\n", second.text());
        Page nothing = source.read(second.cursorAfter(), 1000, 1 << 20);
        assertTrue(nothing.isEmpty());
        assertEquals("0:14", nothing.cursorAfter());
    }

    @Test
    void movesToTheNextChunkOnlyWhenThePluginOffersIt() throws IOException {
        airflow.append(DAG, TASK, "a\n");
        String cursor = null;
        for (int i = 0; i < 3; i++) {
            cursor = source.read(cursor, 1000, 1 << 20).cursorAfter();
        }
        assertEquals(List.of(0, 0, 0), airflow.asked);
        airflow.newChunk(DAG, TASK, "b\n");
        Page end = source.read(cursor, 1000, 1 << 20);
        assertEquals("", end.text());
        assertEquals("1:0", end.cursorAfter());
        assertTrue(end.more());
        Page next = source.read(end.cursorAfter(), 1000, 1 << 20);
        assertEquals("b\n", next.text());
        assertFalse(next.more());
        source.read(next.cursorAfter(), 1000, 1 << 20);
        assertTrue(airflow.asked.stream().allMatch(i -> i <= 1), airflow.asked.toString());
    }

    @Test
    void aNewTryWithFewerChunksRestartsFromItsStartFlaggedRestarted() throws IOException {
        airflow.append(DAG, TASK, "try 1 a\n");
        airflow.newChunk(DAG, TASK, "try 1 b\n");
        Page one = source.read(source.read(null, 1000, 1 << 20).cursorAfter(), 1000, 1 << 20);
        assertEquals("1:8", one.cursorAfter());
        airflow.newTry(DAG, TASK, "try 2\n");
        Page fresh = source.read(one.cursorAfter(), 1000, 1 << 20);
        assertTrue(fresh.restarted());
        assertEquals("try 2\n", fresh.text());
        assertEquals("0:6", fresh.cursorAfter());
    }

    @Test
    void aShrunkChunkIsANewTryShownFromItsStart() throws IOException {
        airflow.append(DAG, TASK, "attempt 1 wrote a lot\n");
        Page first = source.read(null, 1000, 1 << 20);
        airflow.newTry(DAG, TASK, "try 2\n");
        Page shrunk = source.read(first.cursorAfter(), 1000, 1 << 20);
        assertTrue(shrunk.restarted());
        assertEquals("try 2\n", shrunk.text());
    }

    @Test
    void bearerTokenIsAcceptedAndWrongCredentialsAreFatal() throws IOException {
        airflow.append(DAG, TASK, "x\n");
        assertEquals("x\n", source(null, null, AirflowPluginServer.TOKEN, Duration.ofSeconds(5))
                .read(null, 1000, 1 << 20).text());
        SourceUnavailableException refused = assertThrows(SourceUnavailableException.class,
                () -> source(AirflowPluginServer.USER, "wrong", null, Duration.ofSeconds(5)).read(null, 1000, 1 << 20));
        assertTrue(refused.getMessage().contains("401"), refused.getMessage());
    }

    @Test
    void noDagNoRunOrNoLogYetIsMissingAndAClientCursorIsNeverTrusted() throws IOException {
        assertThrows(MissingLogException.class, () -> source.read(null, 1000, 1 << 20));
        airflow.dagWithoutRuns(DAG);
        assertThrows(MissingLogException.class, () -> source.read(null, 1000, 1 << 20));
        airflow.newTry(DAG, TASK);
        assertThrows(MissingLogException.class, () -> source.read(null, 1000, 1 << 20));
        airflow.append(DAG, TASK, "x\n");
        Page garbage = source.read("7:x", 1000, 1 << 20);
        assertTrue(garbage.restarted());
        assertEquals("x\n", garbage.text());
    }

    @Test
    void aSlowAirflowIsATransientTimeout() {
        airflow.append(DAG, TASK, "x\n");
        airflow.delayMillis = 1500;
        IOException slow = assertThrows(IOException.class,
                () -> source(AirflowPluginServer.USER, AirflowPluginServer.PASSWORD, null, Duration.ofMillis(300))
                        .read(null, 1000, 1 << 20));
        assertFalse(slow instanceof MissingLogException);
    }

    @Test
    void theDagIdIsThePipelineNameOfTheFqn() {
        assertEquals("ingest", AirflowLogSource.dagId("svc.ingest"));
        assertEquals("a.b", AirflowLogSource.dagId("svc.\"a.b\""));
        assertEquals("solo", AirflowLogSource.dagId("solo"));
    }

    @Test
    void anAnswerLargerThanMaxResponseBytesIsRefusedNamingTheSettingAndNeverReadWhole() {
        airflow.append(DAG, TASK, "x".repeat(300_000) + "\n");
        AirflowLogSource capped = new AirflowLogSource(http, new AirflowSettings(airflow.base(), "api/v1/openmetadata",
                TASK, AirflowPluginServer.USER, AirflowPluginServer.PASSWORD, null, Duration.ofSeconds(5)),
                new ReadGate(new ReadLimits("airflow", 5, 2, 100_000)), FQN);
        ReadLimitException.TooLarge refused = assertThrows(ReadLimitException.TooLarge.class,
                () -> capped.read(null, 1000, 1 << 20));
        assertTrue(refused.getMessage().contains("airflow.maxResponseBytes = 100000"), refused.getMessage());
    }

    @Test
    void readsPastMaxConcurrentReadsWaitForTheNextTickNamingTheSetting() throws IOException {
        airflow.append(DAG, TASK, "line\n");
        ReadGate gate = new ReadGate(new ReadLimits("airflow", 5, 1, 1 << 20));
        AirflowLogSource gated = new AirflowLogSource(http, new AirflowSettings(airflow.base(), "api/v1/openmetadata",
                TASK, AirflowPluginServer.USER, AirflowPluginServer.PASSWORD, null, Duration.ofSeconds(5)), gate, FQN);
        gate.enter();
        ReadLimitException.Busy busy = assertThrows(ReadLimitException.Busy.class, () -> gated.read(null, 1000, 1 << 20));
        assertTrue(busy.getMessage().contains("airflow.maxConcurrentReads = 1"), busy.getMessage());
        gate.exit();
        assertEquals("line\n", gated.read(null, 1000, 1 << 20).text());
        assertEquals(0, gate.inFlight());
        assertEquals(5, gated.maxActiveRuns());
    }
}
