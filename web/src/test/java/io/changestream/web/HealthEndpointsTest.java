package io.changestream.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The shared face on a real Javalin server: what a probe and a scraper get. */
class HealthEndpointsTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void probesAnswerOneJsonShapeAndTheScrapeIsPrometheusText() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.counter("changestream_test_events").increment();
        AtomicReference<Health> ready = new AtomicReference<>(Health.down("subscriptions \"view\" stale\nfor 31 s"));
        Javalin app = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            HealthEndpoints.install(c, () -> Health.UP, ready::get, registry);
        }).start("127.0.0.1", 0);
        try {
            HttpResponse<String> live = get(app, HealthEndpoints.LIVE);
            assertEquals(200, live.statusCode());
            assertEquals("{\"status\":\"UP\"}", live.body());
            assertTrue(live.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            HttpResponse<String> notReady = get(app, HealthEndpoints.READY);
            assertEquals(503, notReady.statusCode());
            assertEquals("{\"status\":\"DOWN\",\"reason\":\"subscriptions \\\"view\\\" stale\\u000afor 31 s\"}",
                    notReady.body());
            ready.set(Health.UP);
            assertEquals(200, get(app, HealthEndpoints.READY).statusCode());
            HttpResponse<String> metrics = get(app, HealthEndpoints.METRICS);
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("changestream_test_events_total 1.0"), metrics.body());
            assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        } finally {
            app.stop();
        }
    }

    @Test
    void bearerTokensAcceptOnlyAConfiguredTokenWhateverTheSchemeCase() {
        BearerTokens tokens = new BearerTokens(List.of("first-token-0123456789", "second-token-0123456789"));
        assertTrue(tokens.allows("Bearer first-token-0123456789"));
        assertTrue(tokens.allows("bearer  second-token-0123456789 "));
        assertFalse(tokens.allows("Bearer first-token-012345678"), "a prefix of a token is not the token");
        assertFalse(tokens.allows("Basic first-token-0123456789"));
        assertFalse(tokens.allows("Bearer "));
        assertFalse(tokens.allows(null));
        assertEquals("abc", BearerTokens.token("BEARER abc"));
        assertEquals("", BearerTokens.token("Token abc"));
    }

    private static HttpResponse<String> get(Javalin app, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
