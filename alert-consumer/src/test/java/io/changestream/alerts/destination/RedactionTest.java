package io.changestream.alerts.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpProxy;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: a failure reason never carries a URL's path or query. The texts are Jetty's own, provoked against a local
 * server that closes the socket mid-response (or answers garbage), as they reach a reason ({@code "I/O error: " +
 * failure}).
 */
class RedactionTest {

    private static final String SLACK_PATH = "/services/T0SECRET/B0SECRET/XXXXSECRETXXXX";

    @Test
    void anEarlyEofMidBodyKeepsTheConnectionButNotThePath() throws Exception {
        String text = jettyFailure("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", false, SLACK_PATH);
        assertTrue(text.contains("EOFException") && text.contains("XXXXSECRETXXXX"), "Jetty prints the path: " + text);
        String reason = Redaction.reason(text);
        assertFalse(reason.contains("SECRET"), reason);
        assertTrue(reason.contains("EOFException"), reason);
        assertTrue(reason.contains("POST /" + Secrets.MASK + " HTTP/1.1"), reason);
    }

    @Test
    void aSocketClosedBeforeAnyAnswerAndAProtocolViolationLoseThePathToo() throws Exception {
        for (String answer : new String[] {"", "NOT HTTP AT ALL\r\n\r\n"}) {
            String text = jettyFailure(answer, false, SLACK_PATH + "?token=q-secret");
            assertTrue(text.contains("XXXXSECRETXXXX"), "Jetty prints the path [" + answer + "]: " + text);
            String reason = Redaction.reason(text);
            assertFalse(reason.contains("SECRET") || reason.contains("q-secret"), reason);
        }
    }

    @Test
    void throughAProxyJettyPrintsTheAbsoluteUrlAndOnlyItsHostStays() throws Exception {
        String text = jettyFailure("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", true,
                "http://hooks.example.org:8443" + SLACK_PATH + "?token=q-secret");
        assertTrue(text.contains("http://hooks.example.org:8443" + SLACK_PATH), "Jetty prints the URL: " + text);
        String reason = Redaction.reason(text);
        assertFalse(reason.contains("SECRET") || reason.contains("q-secret"), reason);
        assertTrue(reason.contains("http://hooks.example.org:8443/" + Secrets.MASK), reason);
    }

    @Test
    void everyUrlKeepsSchemeHostAndPortOnly() {
        assertEquals("connect failed to https://hooks.slack.com/" + Secrets.MASK + " (refused)",
                Redaction.reason("connect failed to https://hooks.slack.com/services/T/B/X (refused)"));
        assertEquals("see http://" + Secrets.MASK + "@[::1]:8080?" + Secrets.MASK + " and HTTPS://h.example/"
                        + Secrets.MASK,
                Redaction.reason("see http://user:pw@[::1]:8080?key=k and HTTPS://h.example/a/b#frag"));
        assertEquals("posted to https://h.example/ and https://h.example",
                Redaction.reason("posted to https://h.example/ and https://h.example"));
        assertEquals("HTTP 503: busy", Redaction.reason("HTTP 503: busy"));
        assertEquals("GET /" + Secrets.MASK + " HTTP/2 failed",
                Redaction.reason("GET /a/b?c=d HTTP/2 failed"));
        assertNull(Redaction.reason(null));
        assertEquals("", Redaction.reason(""));
    }

    /**
     * Sends one POST over Jetty's client to a local server that reads the request head, writes {@code answer} and
     * closes the socket; returns {@code "I/O error: " + failure}, the form a delivery reason takes.
     */
    private static String jettyFailure(String answer, boolean asProxy, String target) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(() -> {
                try (Socket socket = server.accept()) {
                    BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                            StandardCharsets.ISO_8859_1));
                    String line = in.readLine();
                    while (line != null && !line.isEmpty()) {
                        line = in.readLine();
                    }
                    OutputStream out = socket.getOutputStream();
                    out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException e) {
                    // the client sees what it sees
                }
            }, "early-eof-server");
            closer.setDaemon(true);
            closer.start();
            HttpClient client = new HttpClient();
            String local = "http://127.0.0.1:" + server.getLocalPort();
            if (asProxy) {
                client.getProxyConfiguration().addProxy(new HttpProxy("127.0.0.1", server.getLocalPort()));
            }
            client.start();
            try {
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                client.newRequest(asProxy ? target : local + target).method("POST")
                        .body(new BytesRequestContent("{}".getBytes(StandardCharsets.UTF_8)))
                        .timeout(10, TimeUnit.SECONDS)
                        .send(result -> failure.complete(result.getFailure()));
                Throwable cause = failure.get(15, TimeUnit.SECONDS);
                assertTrue(cause != null, "the exchange failed");
                return "I/O error: " + cause;
            } finally {
                client.stop();
            }
        }
    }
}
