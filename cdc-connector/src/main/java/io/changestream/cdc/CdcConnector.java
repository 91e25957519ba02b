package io.changestream.cdc;

import io.changestream.cdc.engine.CaptureLoop;
import io.changestream.cdc.engine.CaptureState;
import io.changestream.cdc.http.HealthServer;
import io.changestream.cdc.metrics.CdcMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cdc-connector service: the capture loop (Debezium engine → Kafka) plus its health and metrics endpoint. Built
 * from a validated {@link CdcConfig}; {@link #start()} once, {@link #close()} from any thread (idempotent, bounded by
 * {@code shutdown.timeout.ms}).
 */
public final class CdcConnector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CdcConnector.class);

    private final CdcConfig config;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final CaptureLoop loop;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile HealthServer http;

    public CdcConnector(CdcConfig config) {
        this.config = config;
        this.loop = new CaptureLoop(config, registry);
    }

    /** Starts the HTTP endpoint, creates missing topics and starts capturing. */
    public CdcConnector start() {
        LOG.info("cdc-connector starting: {}", config);
        http = new HealthServer(config.http().host(), config.http().port(), registry, loop::live, loop::liveFailure,
                loop::streaming,
                () -> loop.state() + (loop.lastError() == null ? "" : " (last error: " + loop.lastError() + ")"))
                .start();
        loop.start();
        return this;
    }

    public boolean streaming() {
        return loop.streaming();
    }

    /** What {@code /health/live} answers: false once a capture or lease thread could not be restarted. */
    public boolean live() {
        return loop.live();
    }

    public CaptureState state() {
        return loop.state();
    }

    public CdcMetrics metrics() {
        return loop.metrics();
    }

    /** The bound HTTP port. */
    public int httpPort() {
        return http.port();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        loop.close();
        HealthServer server = http;
        if (server != null) {
            server.close();
        }
        registry.close();
    }
}
