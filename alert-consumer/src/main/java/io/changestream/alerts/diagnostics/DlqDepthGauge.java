package io.changestream.alerts.diagnostics;

import io.changestream.alerts.metrics.AlertMeter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code changestream_alert_dlq_depth{topic}}: the records held in {@code alert-dlq} (log end minus log start over
 * its partitions, {@link SubscriptionDiagnostics#dlqDepth}), read every {@code diagnostics.dlqDepthInterval} by its
 * own daemon thread, which it owns and stops on {@link #close} (idempotent, does not drain). Group-wide: every
 * instance of a group reports the same figure. Before the first read the gauge is NaN; a failed read keeps the last
 * figure and is logged once until a read succeeds again.
 */
public final class DlqDepthGauge implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DlqDepthGauge.class);

    private final SubscriptionDiagnostics diagnostics;
    private final ScheduledExecutorService thread;
    private final Gauge gauge;
    private final MeterRegistry meters;
    private volatile double depth = Double.NaN;
    private boolean failing;

    private DlqDepthGauge(SubscriptionDiagnostics diagnostics, MeterRegistry meters) {
        this.diagnostics = diagnostics;
        this.meters = meters;
        this.gauge = AlertMeter.DLQ_DEPTH.gauge(this, g -> g.depth).tag("topic", diagnostics.dlqTopic())
                .register(meters);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cs-dlq-depth");
            t.setDaemon(true);
            return t;
        });
    }

    /** Registers the gauge and reads the depth now and then every {@code interval}. */
    public static DlqDepthGauge start(SubscriptionDiagnostics diagnostics, Duration interval, MeterRegistry meters) {
        DlqDepthGauge g = new DlqDepthGauge(diagnostics, meters);
        g.thread.scheduleWithFixedDelay(g::read, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return g;
    }

    /** The depth thread: one read. */
    void read() {
        try {
            depth = diagnostics.dlqDepth();
            if (failing) {
                LOG.info("the depth of {} is read again: {}", diagnostics.dlqTopic(), (long) depth);
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                LOG.warn("the depth of {} could not be read; changestream_alert_dlq_depth keeps its last value: {}",
                        diagnostics.dlqTopic(), e.getMessage());
                failing = true;
            }
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        meters.remove(gauge);
    }
}
