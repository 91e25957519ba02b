package io.changestream.alerts.retry;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.runtime.RetryLaterException;
import io.changestream.runtime.RuntimeState;
import io.changestream.runtime.RuntimeStatus;
import io.changestream.runtime.Stages;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry path's consumer side (decision 1120, issue 21 item 7): one thread owns the {@code alert-retry} consumer
 * (group {@code <group>-retry}) and a second, group-less reader for re-reads; {@code retry.lanes} worker threads try
 * the records, never waiting for a receiver (sends are asynchronous; a worker only works out what a result means). Per partition and destination a {@link DestinationQueue} holds at most
 * {@code retry.maxHeldPerDestination} records in memory (and all queues at most {@code retry.maxHeld}, a
 * destination's head always); the rest stay on the topic and are read again when the queue has room. Partitions are
 * never paused, so a destination with any number of parked pairs holds back nobody else's. Up to
 * {@code retry.maxConcurrentPerDestination} records of one destination are tried at once, in order per entity, each at
 * its due time (a try that does not settle pauses its destination's queue); the commit of a partition is its lowest
 * offset not settled (a held head or the first record left on the topic), and a new owner skips what was settled
 * above it by the destinations' progress on that partition ({@link DestinationStates}: how far a destination settled
 * without a gap, and the offsets settled out of order above that; decision 2104). A revoke waits (bounded by
 * {@code retry.stateCatchUp}) for the running tries, publishes progress and commits.
 *
 * <p>Meters: {@code changestream_alert_retry_held}, {@code changestream_alert_retry_oldest_age_seconds},
 * {@code changestream_alert_retry_left_on_topic_total}.
 */
final class RetryLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetryLoop.class);
    private static final int STATUS_KEYS = 100;

    private final RetrySettings settings;
    private final RetryProcessor processor;
    private final DestinationStates states;
    private final Clock clock;
    private final Duration pollTimeout;
    private final long commitIntervalMillis;
    private final KafkaConsumer<String, String> consumer;
    private final KafkaConsumer<String, String> rereader;
    private final ExecutorService workers;
    private final Thread thread;
    private final Map<TopicPartition, Owned> owned = new ConcurrentHashMap<>();
    private final AtomicInteger held = new AtomicInteger();
    private final Counter leftOnTopic;
    private volatile boolean closed;
    /** When a {@link #close(Duration)} must be done, System.nanoTime(); set before {@link #closed}. */
    private volatile long closeDeadlineNanos;
    private volatile boolean live = true;
    private long lastCommit;
    /** The partition the group-less reader is on, and the offset it returns next (loop thread). */
    private TopicPartition rereading;
    private long rereadNext = -1;

    /** One owned partition: its queues by destination, and how far the consumer read it. */
    private static final class Owned {
        final Map<String, DestinationQueue> queues = new ConcurrentHashMap<>();
        /** The next offset the consumer returns; -1 before the first record. */
        volatile long position = -1;
        volatile long committed = -1;
    }

    RetryLoop(RetrySettings settings, Map<String, Object> kafka, Duration pollTimeout, Duration commitInterval,
              RetryProcessor processor, DestinationStates states, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.processor = processor;
        this.states = states;
        this.clock = clock;
        this.pollTimeout = pollTimeout;
        this.commitIntervalMillis = commitInterval.toMillis();
        Map<String, Object> props = new HashMap<>(kafka);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, settings.retryGroupId());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.groupId() + "-retry");
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        Map<String, Object> reread = new HashMap<>(props);
        reread.remove(ConsumerConfig.GROUP_ID_CONFIG);
        reread.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        reread.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.groupId() + "-retry-reread");
        this.rereader = new KafkaConsumer<>(reread, new StringDeserializer(), new StringDeserializer());
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(settings.lanes(), r -> {
            Thread t = new Thread(r, "cs-retry-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        this.thread = new Thread(this::run, "cs-retry-consumer");
        thread.setDaemon(true);
        this.leftOnTopic = AlertMeter.RETRY_LEFT_ON_TOPIC.counter()
                .register(meters);
        AlertMeter.RETRY_HELD.gauge(held, AtomicInteger::get)
                .register(meters);
        AlertMeter.RETRY_OLDEST_AGE.gauge(this, RetryLoop::oldestAgeSeconds)
                .baseUnit("seconds")
                .register(meters);
    }

    void start() {
        thread.start();
    }

    /** False once the consumer thread stopped for good. */
    boolean live() {
        return live && thread.isAlive();
    }

    private void run() {
        try {
            consumer.subscribe(List.of(settings.retryTopic()), new Listener());
            while (!closed) {
                try {
                    ConsumerRecords<String, String> records = consumer.poll(pollTimeout);
                    records.forEach(this::take);
                    reread();
                    dispatch();
                    maybeCommit(false);
                } catch (WakeupException e) {
                    if (!closed) {
                        LOG.warn("retry consumer woken up unexpectedly");
                    }
                } catch (RuntimeException e) {
                    LOG.error("retry consumer: {}; going on", e.toString(), e);
                    LockSupport.parkNanos(pollTimeout.toNanos());
                }
            }
        } catch (RuntimeException e) {
            live = false;
            LOG.error("retry consumer stopped: parked pairs are not retried on this instance", e);
        } finally {
            shutdown();
        }
    }

    /** A record the consumer returned: skipped (settled, not ours), held, or left on the topic. */
    private void take(ConsumerRecord<String, String> record) {
        TopicPartition tp = new TopicPartition(record.topic(), record.partition());
        Owned o = owned.get(tp);
        if (o == null) {
            return;
        }
        o.position = record.offset() + 1;
        RetryRecord r = parse(record);
        if (r == null) {
            return;
        }
        if (processor.alreadySettled(tp, record.offset(), r)) {
            processor.skipped("duplicate");
            return;
        }
        DestinationQueue q = o.queues.computeIfAbsent(r.destination(), d -> new DestinationQueue(tp, d));
        if (q.offer(record.offset(), r, settings.maxHeldPerDestination(), held.get() < settings.maxHeld())) {
            held.incrementAndGet();
        } else {
            leftOnTopic.increment();
        }
    }

    /** The retry record, or null for a tombstone, another group's record or an unreadable one (counted). */
    private RetryRecord parse(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            RetryRecord r = RetryRecord.fromJson(record.value());
            return settings.groupId().equals(r.groupId()) ? r : null; // another group's hand-off on a shared topic
        } catch (IllegalArgumentException e) {
            LOG.error("unreadable retry record at {}-{}@{} skipped: {}", record.topic(), record.partition(),
                    record.offset(), e.getMessage());
            processor.skipped("unreadable");
            return null;
        }
    }

    /**
     * One read of the group-less reader for one queue with records left on the topic and room for them: records of
     * the destination from where they were left, up to the consumer's position (past it, the consumer brings them).
     */
    private void reread() {
        DestinationQueue q = null;
        Owned of = null;
        for (Owned o : owned.values()) {
            for (DestinationQueue c : o.queues.values()) {
                if (c.leftFrom() >= 0 && !c.released() && c.size() <= settings.maxHeldPerDestination() / 2
                        && (c.size() == 0 || held.get() < settings.maxHeld())
                        && (q == null || c.size() < q.size())) {
                    q = c;
                    of = o;
                }
            }
        }
        if (q == null) {
            return;
        }
        TopicPartition tp = q.partition();
        long from = q.leftFrom();
        if (!tp.equals(rereading) || rereadNext != from) {
            rereader.assign(List.of(tp));
            rereader.seek(tp, from);
            rereading = tp;
            rereadNext = from;
        }
        long until = of.position;
        long next = from;
        List<ConsumerRecord<String, String>> records = rereader.poll(pollTimeout).records(tp);
        rereadNext = records.isEmpty() ? rereadNext : records.get(records.size() - 1).offset() + 1;
        for (ConsumerRecord<String, String> record : records) {
            if (record.offset() < from) {
                continue;
            }
            if (record.offset() >= until) {
                next = -1; // caught up with the consumer: it brings the rest
                break;
            }
            next = record.offset() + 1;
            RetryRecord r = record.value() == null || !q.destination().equals(record.key()) ? null : parse(record);
            if (r == null || !q.destination().equals(r.destination())
                    || processor.alreadySettled(tp, record.offset(), r)) {
                continue;
            }
            if (q.size() >= settings.maxHeldPerDestination() || (q.size() > 0 && held.get() >= settings.maxHeld())) {
                next = record.offset(); // full again: the rest stays on the topic from here
                break;
            }
            q.refilled(record.offset(), r);
            held.incrementAndGet();
        }
        if (next >= until) {
            next = -1;
        }
        q.leftFrom(next);
        // the reader goes on from where its last batch ended; a next read from anywhere else seeks first
    }

    /** Starts every queue's records that may go now on the workers; forgets queues with nothing left. */
    private void dispatch() {
        long now = clock.millis();
        for (Owned o : owned.values()) {
            for (DestinationQueue q : o.queues.values()) {
                if (!startTries(q, now) && q.empty()) {
                    o.queues.remove(q.destination(), q);
                }
            }
        }
    }

    /** Starts the queue's records that may go now (in order per entity, at most the bound at once). */
    private boolean startTries(DestinationQueue q, long now) {
        if (closed) {
            return false;
        }
        List<DestinationQueue.Held> due = q.claim(now, settings.maxConcurrentPerDestination(),
                states.of(q.destination()).on(q.partition().partition()).settledAbove().size());
        for (DestinationQueue.Held h : due) {
            workers.execute(() -> attempt(q, h));
        }
        return !due.isEmpty();
    }

    /**
     * Worker: tries one record. A send does not hold the worker: the result is worked out when it is in (on a worker
     * again); then the queue's next records that may go are started, so a hanging receiver holds back only its own
     * destination's records.
     */
    private void attempt(DestinationQueue q, DestinationQueue.Held h) {
        if (q.released() || closed) {
            q.finished(h, false, 0, null); // the next owner tries it
            return;
        }
        CompletableFuture<RetryProcessor.Step> step;
        try {
            step = processor.attempt(q.partition(), h.offset(), h.record(), h.progress(), workers);
        } catch (RuntimeException e) {
            step = CompletableFuture.failedFuture(e);
        }
        q.track(step);
        step.whenComplete((s, error) -> {
            if (error != null && (closed || q.released())) {
                q.finished(h, false, 0, null); // closing or released (a cancelled try): the next owner tries it
                return;
            }
            RetryProcessor.Step next;
            try {
                next = error == null ? s : failed(q.partition(), h, Stages.unwrap(error));
            } catch (RuntimeException e) {
                next = new RetryProcessor.Step(false, clock.millis() + settings.recheckInterval().toMillis(), "error");
            }
            long drained = q.finished(h, next.settled(), next.at(), next.reason());
            if (next.settled()) {
                held.decrementAndGet();
            }
            if (drained >= 0) {
                // every record of the destination up to here is settled: the main path may send again past them
                states.drained(q.destination(), q.partition().partition(), drained);
            } else if (next.settled()) {
                // settled before an earlier record: published too, so a new owner does not send it again
                states.settledAbove(q.destination(), q.partition().partition(), h.offset());
            }
            if (next.settled()) {
                states.settledMark(q.destination(), q.partition().partition(), h.offset());
            }
            startTries(q, clock.millis());
        });
    }

    /** A try that failed: not acked (tried again later), or an unexpected error (dead-lettered and settled). */
    private RetryProcessor.Step failed(TopicPartition tp, DestinationQueue.Held h, Throwable error) {
        RetryRecord r = h.record();
        if (error instanceof RetryLaterException) {
            LOG.warn("retry record {}@{} of {}: {}; tried again in {}", tp, h.offset(), r.destination(),
                    error.getMessage(), settings.recheckInterval());
        } else {
            LOG.error("retry record {}@{} of {} failed for good: {}", tp, h.offset(), r.destination(), error, error);
            try {
                return processor.failedForGood(tp, h.offset(), r, h.progress(), "retry path error: " + error);
            } catch (RuntimeException again) {
                LOG.warn("retry record {}@{} not settled: {}; tried again in {}", tp, h.offset(), again.toString(),
                        settings.recheckInterval());
            }
        }
        return new RetryProcessor.Step(false, clock.millis() + settings.recheckInterval().toMillis(), "not acked");
    }

    /** Commits each partition's lowest offset not settled, after publishing the progress above it. */
    private void maybeCommit(boolean now) {
        long t = clock.millis();
        if (!now && t - lastCommit < commitIntervalMillis) {
            return;
        }
        lastCommit = t;
        commit(owned.keySet());
    }

    private void commit(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            Owned o = owned.get(tp);
            long c = o == null ? -1 : committable(o);
            if (c >= 0 && c != o.committed) {
                offsets.put(tp, new OffsetAndMetadata(c));
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        states.publishNow(); // a new owner skips what was settled above the commit by the published progress
        try {
            consumer.commitSync(offsets, settings.ackTimeout());
            offsets.forEach((tp, c) -> {
                Owned o = owned.get(tp);
                if (o != null) {
                    o.committed = c.offset();
                }
            });
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("retry offsets not committed (tried again): {}", e.toString());
        }
    }

    private static long committable(Owned o) {
        long c = o.position;
        if (c < 0) {
            return -1;
        }
        for (DestinationQueue q : o.queues.values()) {
            long first = q.firstOffset();
            if (first >= 0 && first < c) {
                c = first;
            }
        }
        return c;
    }

    /** Stops new tries of the partitions and waits (bounded) for the running ones. */
    private void release(Collection<TopicPartition> partitions) {
        release(partitions, System.nanoTime() + settings.stateCatchUp().toNanos());
    }

    /**
     * Starts no new try of the partitions' records, waits until {@code deadlineNanos} for the running ones and
     * cancels what still runs (its send is aborted, the record stays unsettled: the next owner tries it).
     */
    private void release(Collection<TopicPartition> partitions, long deadlineNanos) {
        List<DestinationQueue> released = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            Owned o = owned.get(tp);
            if (o != null) {
                o.queues.values().forEach(q -> {
                    q.release();
                    released.add(q);
                });
            }
        }
        while (released.stream().anyMatch(q -> q.running() > 0) && System.nanoTime() < deadlineNanos) {
            LockSupport.parkNanos(5_000_000);
        }
        int cancelled = released.stream().mapToInt(DestinationQueue::cancelRunning).sum();
        if (cancelled > 0) {
            LOG.info("retry path released {}: {} tries still running cancelled; the next owner tries them again",
                    partitions, cancelled);
        }
    }

    private void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Owned o = owned.remove(tp);
            if (o != null) {
                held.addAndGet(-o.queues.values().stream().mapToInt(DestinationQueue::unsettled).sum());
            }
            if (tp.equals(rereading)) {
                rereading = null;
                rereader.unsubscribe();
            }
        }
    }

    /** Rebalances, on the consumer thread. */
    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            states.awaitCurrent(); // the previous owner's progress, so what it settled is skipped
            partitions.forEach(tp -> owned.put(tp, new Owned()));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            release(partitions);
            // what settled above the first unsettled record moves no commit, so commit() may not publish it: the
            // next owner must read it before it starts (decision 2104)
            states.publishNow();
            commit(partitions);
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            release(partitions);
            states.publishNow();
            forget(partitions);
        }
    }

    private double oldestAgeSeconds() {
        long now = clock.millis();
        long oldest = now;
        for (Owned o : owned.values()) {
            for (DestinationQueue q : o.queues.values()) {
                DestinationQueue.Held h = q.head();
                if (h != null) {
                    oldest = Math.min(oldest, h.progress().handedOffAt);
                }
            }
        }
        return Math.max(0, now - oldest) / 1000.0;
    }

    /** Records held in memory now. */
    int held() {
        return held.get();
    }

    /**
     * The loop's state in the consumer runtime's terms, for {@code /api/v1/runtime/status}: each owned partition
     * (its commit), and each destination's head as a parked key ({@code waitingBehind}: the records held behind it;
     * more may be left on the topic).
     */
    RuntimeStatus status() {
        List<RuntimeStatus.PartitionStatus> partitions = new ArrayList<>();
        List<RuntimeStatus.ParkedKey> keys = new ArrayList<>();
        int count = 0;
        for (Map.Entry<TopicPartition, Owned> e : owned.entrySet()) {
            TopicPartition tp = e.getKey();
            Owned o = e.getValue();
            long c = committable(o);
            int inFlight = 0;
            for (DestinationQueue q : o.queues.values()) {
                DestinationQueue.Held h = q.head();
                inFlight += q.unsettled();
                if (h == null) {
                    continue;
                }
                count++;
                if (keys.size() < STATUS_KEYS) {
                    keys.add(new RuntimeStatus.ParkedKey(0, q.destination(), tp.topic(), tp.partition(), h.offset(),
                            h.progress().attempts + 1, Instant.ofEpochMilli(q.dueAt()),
                            q.reason() == null ? "due" : q.reason(), q.unsettled() - 1));
                }
            }
            partitions.add(new RuntimeStatus.PartitionStatus(tp.topic(), tp.partition(), thread.getName(),
                    o.committed < 0 ? OptionalLong.empty() : OptionalLong.of(o.committed),
                    c < 0 ? OptionalLong.empty() : OptionalLong.of(c), OptionalLong.empty(), Optional.empty(),
                    inFlight, false, Set.of(), OptionalLong.empty()));
        }
        return new RuntimeStatus(closed ? RuntimeState.CLOSED : RuntimeState.RUNNING, live(), partitions, List.of(),
                keys, count, held.get());
    }

    /** {@link #close(Duration)} within {@code retry.stateCatchUp}. */
    @Override
    public void close() {
        close(settings.stateCatchUp());
    }

    /**
     * Stops the loop: running tries get until {@code timeout} to finish, the rest are cancelled (their sends aborted;
     * the next owner tries them), progress and offsets go out. Idempotent.
     */
    void close(Duration timeout) {
        if (closed) {
            return;
        }
        closeDeadlineNanos = System.nanoTime() + timeout.toNanos();
        closed = true;
        consumer.wakeup();
        try {
            thread.join(timeout.toMillis() + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdown() {
        try {
            release(owned.keySet(), closed ? closeDeadlineNanos
                    : System.nanoTime() + settings.stateCatchUp().toNanos());
            states.publishNow();
            commit(owned.keySet());
        } catch (RuntimeException e) {
            LOG.warn("retry offsets not committed at close: {}", e.toString());
        }
        workers.shutdown();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(consumer);
        closeQuietly(rereader);
    }

    private static void closeQuietly(KafkaConsumer<?, ?> c) {
        try {
            c.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.warn("retry consumer not closed cleanly: {}", e.toString());
        }
    }
}
