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
import org.openqa.selenium.JavascriptExecutor;
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

    @Test
    void pageStreamsWithTokenKeepsCursorReconnectsAndResetsOnTruncated() throws Exception {
        startServer(0);
        int port = server.port();
        append("a\nb\n");
        browser.get("http://127.0.0.1:" + port + "/ui/logs.html?fqn=svc.pipe&runId=r1&retryMs=100&maxRetryMs=400"
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
