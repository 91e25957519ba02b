package io.changestream.logs;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** The viewer page in a real headless Chromium (Debian's chromium + chromium-driver) against a real server. */
class ViewerPageIT {

    @TempDir
    Path root;
    @TempDir
    Path profile;
    private ChromeDriver browser;
    private LogTailerServer server;
    private Path log;

    @BeforeEach
    void openBrowser() throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        log = Files.createDirectories(root.resolve("svc.pipe/r1")).resolve("logs.txt");
    }

    @AfterEach
    void close() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }


    private void startServer(int port) {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("http.port", Integer.toString(port))));
    }

    private void append(String text) throws Exception {
        Files.writeString(log, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private Object js(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private String shown() {
        return (String) js("return document.getElementById('log').textContent");
    }

    private String status() {
        return (String) js("return window.logViewer.status");
    }

    private boolean visible(String id) {
        return browser.findElement(By.id(id)).isDisplayed();
    }

    /** Saves what the page shows now as {@code target/viewer-page-it/<name>.png} (a test artifact). */
    private void screenshot(String name) throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "viewer-page-it"));
        Files.write(dir.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
    }

    /** A viewer of {@code svc.pipe/run} outside the browser (it keeps the run's reader going). */
    private SseClient streamFromTheTest(String run) throws Exception {
        return SseClient.open(java.net.http.HttpClient.newHttpClient(), java.net.URI.create("http://127.0.0.1:"
                + server.port() + "/api/v1/services/ingestionPipelines/logs/svc.pipe/stream/" + run),
                TestConfigs.TOKEN, true);
    }

    private String page(String query) {
        return "http://127.0.0.1:" + server.port() + "/ui/logs.html?" + query + "#token=" + TestConfigs.TOKEN;
    }

    @Test
    void afterBoundedFailuresThePageGivesUpAndItsRetryButtonReconnects() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        append("a\n");
        startServer(port);
        browser.get(page("fqn=svc.pipe&runId=r1&retryMs=50&maxRetryMs=100&maxRetries=3"));
        await().atMost(Duration.ofSeconds(20)).until(() -> "a\n".equals(shown()));
        server.close();
        server = null;
        await().atMost(Duration.ofSeconds(20)).until(() -> Boolean.TRUE.equals(js("return window.logViewer.gaveUp")));
        assertEquals(3, ((Number) js("return window.logViewer.reconnects")).intValue());
        assertTrue(status().startsWith("gave up after 3 attempts"), status());
        assertTrue(visible("retry"));
        screenshot("gave-up-with-retry-button");
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5))
                .until(() -> ((Number) js("return window.logViewer.reconnects")).intValue() == 3);
        append("b\n");
        startServer(port);
        browser.findElement(By.id("retry")).click();
        await().atMost(Duration.ofSeconds(20)).until(() -> "a\nb\n".equals(shown()));
        assertEquals("live", status());
        assertTrue(!visible("retry"));
    }

    @Test
    void anErrorEventThatSaysToStopIsNeverRetried() throws Exception {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("stream.maxActiveRuns", "1")));
        Files.createDirectories(root.resolve("svc.pipe/r0"));
        try (SseClient holder = streamFromTheTest("r0")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> server.manager().activeRuns() == 1);
            browser.get(page("fqn=svc.pipe&runId=r1&retryMs=50"));
            await().atMost(Duration.ofSeconds(20)).until(() -> status().startsWith("error:"));
            assertTrue(status().contains("maximum number of pipeline runs"), status());
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
                    .until(() -> ((Number) js("return window.logViewer.reconnects")).intValue() == 0);
            assertTrue(visible("retry"));
            screenshot("stopped-on-error-event");
        }
    }

    @Test
    void afterTruncatedThePageBackfillsTheHistoryFromLastAndShowsEveryLineOnce() throws Exception {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("stream.maxReplayBytes", "4")));
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            all.append("line ").append(i).append('\n');
        }
        append(all.toString());
        try (SseClient holder = streamFromTheTest("r1")) {
            await().atMost(Duration.ofSeconds(10)).until(() -> holder.text().equals(all.toString()));
            // a cursor the backend cannot use: the stream restarts from the beginning flagged truncated
            browser.get(page("fqn=svc.pipe&runId=r1&after=not-a-cursor&retryMs=100"));
            await().atMost(Duration.ofSeconds(20)).until(() -> all.toString().equals(shown()));
            assertEquals(1, ((Number) js("return window.logViewer.truncations")).intValue());
            assertEquals(1, ((Number) js("return window.logViewer.backfills")).intValue());
            append("live after the backfill\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> (all + "live after the backfill\n").equals(shown()));
            screenshot("backfilled-after-truncated");
        }
    }

    @Test
    void atMaxBytesThePageOffersTheWholeLogForDownload() throws Exception {
        server = LogTailerServer.start(TestConfigs.config(root, Map.of("stream.maxStreamBytes", "300")));
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            all.append("a longer log line number ").append(i).append('\n');
        }
        append(all.toString());
        browser.get(page("fqn=svc.pipe&runId=r1&retryMs=100"));
        await().atMost(Duration.ofSeconds(20)).until(() -> status().startsWith("complete: maxBytes"));
        assertTrue(status().contains("stream.maxStreamBytes"), status());
        assertTrue(visible("download"));
        screenshot("max-bytes-download-offered");
        browser.findElement(By.id("download")).click();
        await().atMost(Duration.ofSeconds(10)).until(() -> js("return window.logViewer.downloadedBytes") != null);
        assertEquals(all.toString().getBytes(StandardCharsets.UTF_8).length,
                ((Number) js("return window.logViewer.downloadedBytes")).intValue());
        assertEquals(0, ((Number) js("return window.logViewer.reconnects")).intValue());
    }

    @Test
    void withoutRunIdThePageListsTheRecentRunsNewestFirst() throws Exception {
        startServer(0);
        for (String run : new String[] {"run-old", "run-mid", "run-new"}) {
            Path dir = Files.createDirectories(root.resolve("svc.pipe").resolve(run));
            Files.setLastModifiedTime(dir, java.nio.file.attribute.FileTime.fromMillis(
                    System.currentTimeMillis() - (run.equals("run-old") ? 3_600_000 : run.equals("run-mid")
                            ? 60_000 : 0)));
        }
        Files.setLastModifiedTime(root.resolve("svc.pipe/r1"), java.nio.file.attribute.FileTime.fromMillis(0));
        browser.get(page("fqn=svc.pipe"));
        await().atMost(Duration.ofSeconds(20)).until(() -> js("return window.logViewer.runs") != null);
        assertEquals(java.util.List.of("run-new", "run-mid", "run-old", "r1"), js("return window.logViewer.runs"));
        screenshot("recent-runs");
        browser.findElement(By.linkText("run-new")).click();
        await().atMost(Duration.ofSeconds(20)).until(() -> "live".equals(status()));
    }

    @Test
    void pageStreamsWithTokenKeepsCursorReconnectsAndResetsOnTruncated() throws Exception {
        startServer(0);
        int port = server.port();
        append("a\nb\n");
        browser.get("http://127.0.0.1:" + port + "/ui/logs.html?fqn=svc.pipe&runId=r1&retryMs=100&maxRetryMs=400&maxRetries=100"
                + "#token=" + TestConfigs.TOKEN);
        await().atMost(Duration.ofSeconds(20)).until(() -> "a\nb\n".equals(shown()));
        assertEquals("2", js("return window.logViewer.cursor"));
        assertTrue(((String) js("return location.href")).indexOf("token") < 0, "token removed from the URL");

        // the server goes away: the stream closes without complete, the page retries with capped backoff
        server.close();
        append("c\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Number) js("return window.logViewer.reconnects"))
                .intValue() >= 3);
        assertTrue(((Number) js("return window.logViewer.nextDelayMs")).intValue() <= 400, "backoff is capped");
        startServer(port);
        await().atMost(Duration.ofSeconds(20)).until(() -> "a\nb\nc\n".equals(shown()));
        assertEquals("3", js("return window.logViewer.cursor"));

        // a cursor the server cannot use: the next stream starts over flagged truncated and the page resets
        js("window.logViewer.cursor = 'not-a-cursor'");
        server.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> ((String) js("return window.logViewer.status"))
                .startsWith("reconnecting"));
        startServer(port);
        await().atMost(Duration.ofSeconds(20)).until(() -> ((Number) js("return window.logViewer.truncations"))
                .intValue() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "a\nb\nc\n".equals(shown()));
    }

    @Test
    void pageWithAWrongTokenStopsAtUnauthorized() {
        startServer(0);
        browser.get("http://127.0.0.1:" + server.port() + "/ui/logs.html?fqn=svc.pipe&runId=r1#token=wrong");
        await().atMost(Duration.ofSeconds(20)).until(() -> "unauthorized".equals(js("return window.logViewer.status")));
        assertEquals(Boolean.TRUE, js("return window.logViewer.done"));
    }
}
