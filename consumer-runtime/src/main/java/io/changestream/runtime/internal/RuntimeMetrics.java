package io.changestream.runtime.internal;

import io.changestream.runtime.Failure;
import io.changestream.runtime.metrics.RuntimeMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Registers the {@link RuntimeMeter} catalogue on the injected registry and removes every meter it registered when
 * the runtime closes. Counters and timers are thread-safe; per-partition gauges are added on assign and removed on
 * revoke by the consumer thread.
 */
final class RuntimeMetrics {

    /** The {@code outcome} tag values of {@link RuntimeMeter#PROCESSING_TIME}. */
    enum Result { SUCCESS, RETRY, DEFER, FAIL, ERROR, TIMEOUT }

    private final MeterRegistry registry;
    private final Tags common;
    private final List<Meter> registered = new ArrayList<>();
    final Counter polled;
    final Timer enqueueWait;
    final Counter retries;
    final Counter handlerErrors;
    final Counter commitSuccess;
    final Counter commitFailure;
    final Counter assigned;
    final Counter revoked;
    final Counter lost;
    final Counter dropped;
    final Counter timedOutThreads;
    final Counter laneErrors;
    final Counter consumerRestarts;
    private final Map<Result, Timer> processing = new EnumMap<>(Result.class);
    private final Map<Failure.Kind, Counter> finalFailures = new EnumMap<>(Failure.Kind.class);

    RuntimeMetrics(MeterRegistry registry, String group) {
        this.registry = registry;
        this.common = Tags.of("group", group);
        polled = counter(RuntimeMeter.RECORDS_POLLED, Tags.empty());
        enqueueWait = timer(RuntimeMeter.ENQUEUE_WAIT, Tags.empty());
        retries = counter(RuntimeMeter.RETRIES, Tags.empty());
        handlerErrors = counter(RuntimeMeter.FAILURE_HANDLER_ERRORS, Tags.empty());
        commitSuccess = counter(RuntimeMeter.COMMITS, Tags.of("result", "success"));
        commitFailure = counter(RuntimeMeter.COMMITS, Tags.of("result", "failure"));
        assigned = counter(RuntimeMeter.REBALANCES, Tags.of("kind", "assigned"));
        revoked = counter(RuntimeMeter.REBALANCES, Tags.of("kind", "revoked"));
        lost = counter(RuntimeMeter.REBALANCES, Tags.of("kind", "lost"));
        dropped = counter(RuntimeMeter.DROPPED, Tags.empty());
        timedOutThreads = counter(RuntimeMeter.TIMED_OUT_THREADS, Tags.empty());
        laneErrors = counter(RuntimeMeter.LANE_ERRORS, Tags.empty());
        consumerRestarts = counter(RuntimeMeter.CONSUMER_RESTARTS, Tags.empty());
        for (Result o : Result.values()) {
            processing.put(o, timer(RuntimeMeter.PROCESSING_TIME, Tags.of("outcome", lower(o))));
        }
        for (Failure.Kind k : Failure.Kind.values()) {
            finalFailures.put(k, counter(RuntimeMeter.FINAL_FAILURES, Tags.of("kind", lower(k))));
        }
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    Timer processing(Result outcome) {
        return processing.get(outcome);
    }

    /** Processor attempts finished so far, every outcome (the stats line's throughput). */
    long attempts() {
        long n = 0;
        for (Timer t : processing.values()) {
            n += t.count();
        }
        return n;
    }

    Counter finalFailure(Failure.Kind kind) {
        return finalFailures.get(kind);
    }

    /** Registers a gauge of the catalogue, holding {@code obj} strongly. */
    synchronized <T> Gauge gauge(RuntimeMeter meter, Tags tags, T obj, ToDoubleFunction<T> value) {
        Gauge g = Gauge.builder(meter.meterName(), obj, value).description(meter.description())
                .tags(common.and(tags)).strongReference(true).register(registry);
        registered.add(g);
        return g;
    }

    /** Consumer thread, on assign: the per-partition gauges; pass the result to {@link #remove} on revoke. */
    List<Meter> partitionGauges(OwnedPartition p) {
        Tags tags = Tags.of("topic", p.topicPartition.topic(), "partition",
                Integer.toString(p.topicPartition.partition()));
        return List.of(
                gauge(RuntimeMeter.COMMITTED_OFFSET, tags, p, o -> o.committed),
                gauge(RuntimeMeter.COMMIT_LAG, tags, p,
                        o -> o.committed < 0 || o.highestTracked < 0 ? 0 : Math.max(0, o.endOfTaken() - o.committed)),
                gauge(RuntimeMeter.CONSUMER_LAG, tags, p, o -> o.consumerLag));
    }

    synchronized void remove(List<Meter> meters) {
        for (Meter m : meters) {
            registry.remove(m);
            registered.remove(m);
        }
    }

    /** Removes every meter this runtime registered. */
    synchronized void close() {
        registered.forEach(registry::remove);
        registered.clear();
    }

    private synchronized Counter counter(RuntimeMeter meter, Tags tags) {
        Counter c = Counter.builder(meter.meterName()).description(meter.description()).tags(common.and(tags))
                .register(registry);
        registered.add(c);
        return c;
    }

    private synchronized Timer timer(RuntimeMeter meter, Tags tags) {
        Timer t = Timer.builder(meter.meterName()).description(meter.description()).tags(common.and(tags))
                .publishPercentileHistogram().register(registry);
        registered.add(t);
        return t;
    }
}
