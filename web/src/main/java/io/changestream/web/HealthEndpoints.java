package io.changestream.web;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.Supplier;

/**
 * The health and metrics face every service shows, on its Javalin app: {@code GET /health/live} and
 * {@code GET /health/ready} answer 200 {@code {"status":"UP"}} or 503 {@code {"status":"DOWN","reason":"…"}} (the
 * shape Spring Boot's and Quarkus' health endpoints use; orchestrators read the status code), and {@code GET /metrics}
 * the Prometheus text format of the service's registry. Open: no token (probes and scrapers carry none).
 */
public final class HealthEndpoints {

    /** Liveness: the process can do its work (restart it otherwise). */
    public static final String LIVE = "/health/live";
    /** Readiness: the process may take traffic now. */
    public static final String READY = "/health/ready";
    /** The Prometheus scrape. */
    public static final String METRICS = "/metrics";
    /** The content type of the Prometheus text exposition format. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private HealthEndpoints() {
    }

    /** Adds the three routes to {@code config}: {@code live} and {@code ready} asked on every request. */
    public static void install(JavalinConfig config, Supplier<Health> live, Supplier<Health> ready,
                               PrometheusMeterRegistry registry) {
        config.routes.get(LIVE, ctx -> answer(ctx, live.get()));
        config.routes.get(READY, ctx -> answer(ctx, ready.get()));
        config.routes.get(METRICS, ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
    }

    /** The JSON body of {@code health}: {@code {"status":"UP"}} or {@code {"status":"DOWN","reason":"…"}}. */
    public static String body(Health health) {
        if (health.up()) {
            return "{\"status\":\"UP\"}";
        }
        return "{\"status\":\"DOWN\",\"reason\":" + quoted(health.reason()) + "}";
    }

    private static void answer(Context ctx, Health health) {
        ctx.status(health.up() ? 200 : 503).contentType("application/json").result(body(health));
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
