package io.changestream.cdc.metrics;

import io.changestream.cdc.transform.RowOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The connector's meters (see {@link CdcMeter}) on one registry. The engine's handler thread records events; the
 * capture loop and lease threads record state. All methods are thread-safe.
 */
public final class CdcMetrics {

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Counter> events = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Long> eventCounts = new ConcurrentHashMap<>();
    private final Counter control;
    private final Timer captureLag;
    private final Timer batchAck;
    private final AtomicLong logPosition = new AtomicLong();
    private final AtomicLong lastCommitMs = new AtomicLong();
    private final Counter restarts;
    private final ConcurrentMap<String, Counter> errors = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> threadRestarts = new ConcurrentHashMap<>();

    public CdcMetrics(MeterRegistry registry, BooleanSupplier connected, BooleanSupplier leaseHeld) {
        this.registry = registry;
        this.control = counter(CdcMeter.CONTROL_RECORDS).register(registry);
        this.captureLag = timer(CdcMeter.CAPTURE_LAG);
        this.batchAck = timer(CdcMeter.BATCH_ACK);
        Gauge.builder(CdcMeter.LOG_POSITION.meterName(), logPosition, AtomicLong::get)
                .description(CdcMeter.LOG_POSITION.description()).register(registry);
        Gauge.builder(CdcMeter.LAST_COMMIT.meterName(), lastCommitMs, v -> v.get() / 1000.0)
                .description(CdcMeter.LAST_COMMIT.description()).baseUnit("seconds").register(registry);
        Gauge.builder(CdcMeter.CONNECTED.meterName(), () -> connected.getAsBoolean() ? 1 : 0)
                .description(CdcMeter.CONNECTED.description()).register(registry);
        Gauge.builder(CdcMeter.LEASE_HELD.meterName(), () -> leaseHeld.getAsBoolean() ? 1 : 0)
                .description(CdcMeter.LEASE_HELD.description()).register(registry);
        this.restarts = counter(CdcMeter.RESTARTS).register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Counts one row of {@code table} with its outcome. */
    public void event(String table, RowOutcome outcome) {
        String key = table + "|" + outcome.tag();
        events.computeIfAbsent(key, k -> counter(CdcMeter.EVENTS).tag("table", table).tag("outcome", outcome.tag())
                .register(registry)).increment();
        eventCounts.merge(key, 1L, Long::sum);
    }

    /** Rows counted so far with this outcome, over all tables. */
    public long count(RowOutcome outcome) {
        return eventCounts.entrySet().stream().filter(e -> e.getKey().endsWith("|" + outcome.tag()))
                .mapToLong(java.util.Map.Entry::getValue).sum();
    }

    public void control() {
        control.increment();
    }

    /** One produced row: capture lag, commit time and log position. */
    public void captured(long commitTimeMs, long captureTimeMs, long position) {
        if (commitTimeMs > 0) {
            captureLag.record(Duration.ofMillis(Math.max(0, captureTimeMs - commitTimeMs)));
            lastCommitMs.set(commitTimeMs);
        }
        if (position > 0) {
            logPosition.set(position);
        }
    }

    public void batchAcked(Duration elapsed) {
        batchAck.record(elapsed);
    }

    public void error(String kind) {
        errors.computeIfAbsent(kind, k -> counter(CdcMeter.ERRORS).tag("kind", k).register(registry)).increment();
    }

    public void restarted() {
        restarts.increment();
    }

    /** One death of the supervised thread {@code role} (capture or lease). */
    public void threadRestarted(String role) {
        threadRestarts.computeIfAbsent(role, r -> counter(CdcMeter.THREAD_RESTARTS).tag("thread", r)
                .register(registry)).increment();
    }

    /** Deaths of the supervised thread {@code role} so far. */
    public double threadRestarts(String role) {
        Counter c = threadRestarts.get(role);
        return c == null ? 0 : c.count();
    }

    /** Errors of {@code kind} so far. */
    public double errors(String kind) {
        Counter c = errors.get(kind);
        return c == null ? 0 : c.count();
    }

    /** Publishes the epoch of the held lease ({@code -1} = none). */
    public void leaseEpoch(java.util.function.LongSupplier epoch) {
        Gauge.builder(CdcMeter.LEASE_EPOCH.meterName(), () -> epoch.getAsLong())
                .description(CdcMeter.LEASE_EPOCH.description()).register(registry);
    }

    private static Counter.Builder counter(CdcMeter meter) {
        return Counter.builder(meter.meterName()).description(meter.description());
    }

    private Timer timer(CdcMeter meter) {
        return Timer.builder(meter.meterName()).description(meter.description()).register(registry);
    }
}
