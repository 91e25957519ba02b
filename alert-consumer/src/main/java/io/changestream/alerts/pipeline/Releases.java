package io.changestream.alerts.pipeline;

import io.changestream.runtime.RetriableException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which lane threads are delivering events of which partition, so that a release never hands a partition over while
 * one of its events is mid-delivery: {@link #release} marks the partitions released (no new delivery starts, see
 * {@link Call#requireOwned}), waits up to the release timeout for the running calls and interrupts (cancels) those
 * still running. Lane threads call {@link #enter}/{@link Call#close}; the consumer thread calls {@link #release}.
 * Meter: {@code changestream_alert_release_cancelled_total}.
 */
final class Releases {

    private static final Logger LOG = LoggerFactory.getLogger(Releases.class);
    private static final long STEP_NANOS = Duration.ofMillis(5).toNanos();

    private final Duration timeout;
    private final Clock clock;
    private final Counter cancelled;
    private final Map<TopicPartition, Calls> partitions = new ConcurrentHashMap<>();

    Releases(Duration timeout, Clock clock, MeterRegistry meters) {
        this.timeout = timeout;
        this.clock = clock;
        this.cancelled = Counter.builder("changestream.alert.release.cancelled")
                .description("Deliveries still running when their partition was released after "
                        + "pipeline.releaseTimeout, cancelled (interrupted)").register(meters);
    }

    /** The calls of one partition; its monitor guards the thread set and the interrupts. */
    private static final class Calls {
        final Set<Thread> threads = new HashSet<>();
        volatile boolean released;
        boolean cancelling;
    }

    /** One lane thread's processing of one event of a partition. */
    final class Call implements AutoCloseable {
        private final Calls calls;

        private Call(Calls calls) {
            this.calls = calls;
        }

        /** Throws (retriable: the runtime drops it for a revoked partition) once the partition is released. */
        void requireOwned() {
            if (calls.released) {
                throw new RetriableException("partition released: no further delivery starts on this instance");
            }
        }

        @Override
        public void close() {
            synchronized (calls) {
                calls.threads.remove(Thread.currentThread());
                if (calls.cancelling) {
                    Thread.interrupted(); // the cancel was meant for this call only, not for the lane
                }
            }
        }
    }

    Call enter(TopicPartition tp) {
        Calls calls = partitions.computeIfAbsent(tp, k -> new Calls());
        synchronized (calls) {
            calls.threads.add(Thread.currentThread());
        }
        return new Call(calls);
    }

    /** Marks the partitions released, waits for their running calls, cancels what is left. Consumer thread. */
    void release(Collection<TopicPartition> released) {
        List<Calls> gone = released.stream().map(partitions::remove).filter(c -> c != null).toList();
        gone.forEach(c -> c.released = true);
        long deadline = clock.millis() + timeout.toMillis();
        while (gone.stream().anyMatch(Releases::busy)) {
            if (clock.millis() >= deadline) {
                for (Calls c : gone) {
                    synchronized (c) {
                        c.cancelling = true;
                        c.threads.forEach(Thread::interrupt);
                        cancelled.increment(c.threads.size());
                    }
                }
                LOG.warn("deliveries of released partitions {} still running after {} (pipeline.releaseTimeout): "
                        + "cancelled; the next owner may send them again (same Idempotency-Key)", released, timeout);
                return;
            }
            LockSupport.parkNanos(STEP_NANOS);
        }
    }

    private static boolean busy(Calls c) {
        synchronized (c) {
            return !c.threads.isEmpty();
        }
    }
}
