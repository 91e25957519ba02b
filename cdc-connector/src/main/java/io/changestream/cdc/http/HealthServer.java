package io.changestream.cdc.http;

import io.changestream.web.Health;
import io.changestream.web.HealthEndpoints;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The connector's HTTP endpoint (Javalin on Jetty): {@code /health/live} (200 while every supervised thread runs or
 * can be restarted, else 503 naming the thread that could not),
 * {@code /health/ready} (200 when streaming from the database log, else 503 with the capture state) and
 * {@code /metrics} (Prometheus text format). Jetty owns its threads; {@link #close()} stops them.
 */
public final class HealthServer implements AutoCloseable {

    private final Javalin app;

    public HealthServer(String host, int port, PrometheusMeterRegistry registry, BooleanSupplier live,
                        Supplier<String> liveFailure, BooleanSupplier ready, Supplier<String> status) {
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = host;
            config.jetty.port = port;
            HealthEndpoints.install(config, () -> Health.of(live.getAsBoolean(), liveFailure),
                    () -> Health.of(ready.getAsBoolean(), status), registry);
        });
    }

    /** Binds the port and starts serving. */
    public HealthServer start() {
        app.start();
        return this;
    }

    /** The bound port (useful with port 0). */
    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
