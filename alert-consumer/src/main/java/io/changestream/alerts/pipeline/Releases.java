package io.changestream.alerts.pipeline;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.runtime.RetryLaterException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which events of which partition are being delivered, so that a release never hands a partition over while one of
 * its events is mid-delivery: {@link #release} marks the partitions released (no new delivery starts, see
 * {@link Call#requireOwned}), waits up to the release timeout (or a stop's deadline, {@link #stopWithin}) for the
 * running calls and cancels the requests of those still running (an HTTP request is aborted; the pair is retried by
 * the next owner). Lane threads call {@link #enter}; a call ends when its event's stage completes
 * ({@link Call#closeWhen}), on any thread; the consumer thread calls {@link #release}. Meter:
 * {@code changestream_alert_release_cancelled_total}.
 */
final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);
    private static final long STEP_NANOS = Duration.ofMillis(5).toNanos();

    private final Duration timeout;
    private final Clock clock;
    private final Counter cancelled;
    private final Map<TopicPartition, Calls> partitions = new ConcurrentHashMap<>();
    /** Epoch ms on {@link #clock} by which a stop must be done (no release waits past it); MAX_VALUE: none. */
    private volatile long stopDeadline = Long.MAX_VALUE;

    Releases(Duration timeout, Clock clock, MeterRegistry meters) {
        this.timeout = timeout;
        this.clock = clock;
        this.cancelled = AlertMeter.RELEASE_CANCELLED.counter().register(meters);
    }

    /** The running calls of one partition. */
    private static final class Calls {
        final Set<Call> running = ConcurrentHashMap.newKeySet();
        volatile boolean released;
    }

    /** The delivery of one event of a partition: its requests in flight. */
    final class Call {
        private final Calls calls;
        private final Set<CompletableFuture<?>> requests = ConcurrentHashMap.newKeySet();

        private Call(Calls calls) {
            this.calls = calls;
        }

        /** Throws (retriable: the runtime drops it for a revoked partition) once the partition is released. */
        void requireOwned() {
            if (calls.released) {
                throw new RetryLaterException("partition released: no further delivery starts on this instance");
            }
        }

        /** Keeps a request in flight cancellable by a release until it completes; returns it. */
        <T> CompletableFuture<T> track(CompletableFuture<T> request) {
            requests.add(request);
            request.whenComplete((r, e) -> requests.remove(request));
            return request;
        }

        /** Ends the call when its event's stage completes. */
        void closeWhen(CompletableFuture<?> stage) {
            stage.whenComplete((r, e) -> {
                calls.running.remove(this);
                if (stage.isCancelled()) {
                    cancel();
                }
            });
        }

        private int cancel() {
            int n = 0;
            for (CompletableFuture<?> request : List.copyOf(requests)) {
                if (request.cancel(true)) {
                    n++;
                }
            }
            return n;
        }
    }

    /** The service stops within {@code timeout}: no later release waits past it. Any thread. */
    void stopWithin(Duration timeout) {
        stopDeadline = clock.millis() + timeout.toMillis();
    }

    Call enter(TopicPartition tp) {
        Calls calls = partitions.computeIfAbsent(tp, k -> new Calls());
        Call call = new Call(calls);
        calls.running.add(call);
        return call;
    }

    /** Marks the partitions released, waits for their running calls, cancels what is left. Consumer thread. */
    void release(Collection<TopicPartition> released) {
        List<Calls> gone = released.stream().map(partitions::remove).filter(c -> c != null).toList();
        gone.forEach(c -> c.released = true);
        long start = clock.millis();
        long deadline = Math.min(start + timeout.toMillis(), stopDeadline);
        while (gone.stream().anyMatch(c -> !c.running.isEmpty())) {
            if (clock.millis() >= deadline) {
                int n = gone.stream().flatMap(c -> List.copyOf(c.running).stream()).mapToInt(Call::cancel).sum();
                cancelled.increment(n);
                LOG.warn("deliveries of released partitions {} still running after {} ms ({}): {} cancelled; the "
                        + "next owner may send them again (same Idempotency-Key)", released, clock.millis() - start,
                        deadline == stopDeadline ? "the stop's runtime.closeTimeout" : "pipeline.releaseTimeout", n);
                return;
            }
            LockSupport.parkNanos(STEP_NANOS);
        }
    }
}
