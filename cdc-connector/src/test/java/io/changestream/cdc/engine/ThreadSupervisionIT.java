package io.changestream.cdc.engine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.http.HealthServer;
import io.changestream.cdc.it.Configs;
import io.changestream.cdc.it.PlatformMariaDb;
import io.changestream.cdc.it.Rows;
import io.changestream.cdc.it.TopicReader;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A capture or lease thread that dies (test hook: it throws an {@link Error} as a crash would) is restarted and
 * capture goes on; one that dies more often than {@code thread.max.restarts} turns {@code /health/live} to 503. Real
 * MariaDB (so both threads exist), real broker, the health endpoint over HTTP, wired as the connector wires it.
 */
class ThreadSupervisionIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @RegisterExtension
    static final PlatformMariaDb MARIADB = new PlatformMariaDb();

    private static final KafkaBroker BROKER = Brokers.shared();

    /** The capture loop and its health endpoint, as {@code CdcConnector} wires them. */
    private record Service(CaptureLoop loop, HealthServer http, PrometheusMeterRegistry registry)
            implements AutoCloseable {

        static Service start(Map<String, String> settings) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            CaptureLoop loop = new CaptureLoop(CdcConfig.fromMap(settings), registry);
            HealthServer http = new HealthServer("127.0.0.1", 0, registry, loop::live, loop::liveFailure,
                    loop::streaming, () -> loop.state().toString()).start();
            loop.start();
            return new Service(loop, http, registry);
        }

        int live() throws Exception {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/health/live"))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }

        @Override
        public void close() {
            loop.close();
            http.close();
            registry.close();
        }
    }

    private static Map<String, String> settings(String ns, String name) {
        Map<String, String> s = new HashMap<>(Configs.mariadb(MARIADB.db(), BROKER, ns, name));
        s.put("restart.backoff.ms", "100");
        s.put("restart.backoff.max.ms", "1000");
        return s;
    }

    private static void insert(String id) {
        MARIADB.db().execute("INSERT INTO change_event (json) VALUES (" + Rows.literal(Rows.changeEvent(id,
                "entityCreated", "table", UUID.randomUUID().toString(), 1, "")) + ")");
    }

    @Test
    void aDeadCaptureOrLeaseThreadIsRestartedAndCaptureGoesOn() throws Exception {
        String ns = "supervise-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        try (Service service = Service.start(settings(ns, "cs-supervise"));
             TopicReader changes = new TopicReader(BROKER, ns + "changes")) {
            await().atMost(Duration.ofSeconds(90)).until(service.loop()::streaming);
            for (String role : new String[] {CaptureLoop.CAPTURE, CaptureLoop.LEASE}) {
                service.loop().crash(role, new OutOfMemoryError("test hook: " + role + " thread dies"));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> service.loop().metrics().threadRestarts(role) == 1.0);
                await().atMost(Duration.ofSeconds(90)).until(service.loop()::streaming);
                String id = UUID.randomUUID().toString();
                insert(id);
                await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                        .anyMatch(v -> id.equals(v.path("id").asText())));
                assertEquals(200, service.live(), "restarted: still live");
            }
            assertTrue(service.registry().scrape().contains("cdc_thread_restarts_total{thread=\"lease\"} 1.0"),
                    "counted per thread");
        }
    }

    @Test
    void aThreadThatCannotBeRestartedFailsLiveness() throws Exception {
        String ns = "supervise-max-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> s = settings(ns, "cs-supervise-max");
        s.put("thread.max.restarts", "1");
        s.put("restart.backoff.max.ms", "600000"); // a death within 10 min of the last counts as "in a row"
        try (Service service = Service.start(s)) {
            await().atMost(Duration.ofSeconds(90)).until(service.loop()::streaming);
            assertEquals(200, service.live());
            service.loop().crash(CaptureLoop.CAPTURE, new StackOverflowError("test hook: first death"));
            await().atMost(Duration.ofSeconds(90)).until(service.loop()::streaming);
            assertEquals(200, service.live(), "one restart allowed");
            service.loop().crash(CaptureLoop.CAPTURE, new StackOverflowError("test hook: second death"));
            await().atMost(Duration.ofSeconds(10)).until(() -> service.live() == 503);
            assertTrue(!service.loop().live() && service.loop().liveFailure().contains("cdc-capture"),
                    service.loop().liveFailure());
        }
    }
}
