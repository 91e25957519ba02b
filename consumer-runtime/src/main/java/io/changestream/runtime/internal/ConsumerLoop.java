package io.changestream.runtime.internal;

import io.changestream.runtime.CloseMode;
import io.changestream.runtime.Event;
import io.changestream.runtime.Failure;
import io.changestream.runtime.KeyFunction;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.runtime.RuntimeStatus;
import io.changestream.state.PartitionSnapshot;
import io.changestream.state.StateManager;
import io.micrometer.core.instrument.Meter;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns one consumer thread and its {@code KafkaConsumer}: the only thread that touches it (other threads only call
 * {@link #requestClose}, which uses the thread-safe {@code wakeup}). Each pass: route the records held back by full
 * lanes, pause or resume partitions, poll, track and route the new records, commit when the interval passed.
 * It also is the consumer's rebalance listener (callbacks run inside {@code poll} on this thread): assign starts
 * tracking, revoke stops routing, waits (bounded) for the partition's taken-in events, commits and forgets it.
 */
final class ConsumerLoop<K, V> implements Runnable, ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerLoop.class);
    /** Poll timeout while records are held back by full lanes, so they move as soon as a lane has room. */
    static final long BACKPRESSURE_POLL_MILLIS = 2;
    /** A paused bound (delay queue, in-flight) resumes below this fraction of its limit. */
    static final double RESUME_FRACTION = 0.9;
    /** How long a revoke or close waits between checks of its partitions' progress. */
    static final long WAIT_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The routing key of a record whose key function said null: unique, so nothing waits behind it. */
    private record Unkeyed(TopicPartition partition, long offset) {
    }

    private final String name;
    private final org.apache.kafka.clients.consumer.Consumer<K, V> consumer;
    private final RuntimeConfig config;
    private final StateManager<OwnedPartition> stateManager;
    private final List<LaneLoop<K, V>> lanes;
    private final KeyFunction<K, V> keyFunction;
    /** Whether {@link #keyFunction} is the default, {@link KeyFunction#recordKey()}. */
    private final boolean recordKey;
    private final LaneAssigner assigner;
    private final DelayScheduler delays;
    private final RuntimeMetrics metrics;
    private final Clock clock;
    private final PartitionListener partitionListener;
    private final Consumer<Throwable> onFatal;
    private final Map<TopicPartition, OwnedPartition> owned = new ConcurrentHashMap<>();
    private final Map<TopicPartition, ArrayDeque<WorkItem<K, V>>> held = new HashMap<>();
    private final Map<TopicPartition, List<Meter>> gauges = new HashMap<>();
    private final Map<TopicPartition, Long> commitRequested = new HashMap<>();
    private final List<List<WorkItem<K, V>>> batches = new ArrayList<>();
    private volatile CloseMode closeMode;
    private volatile long closeDeadlineMillis;
    private long lastCommitMillis;
    private boolean delayQueueFull;
    private boolean memoryFull;
    /** Consumer thread: the offsets of one partition's records of one poll, reused. */
    private long[] offsets = new long[512];
    private final LongAdder bufferedBytes;

    ConsumerLoop(String name, org.apache.kafka.clients.consumer.Consumer<K, V> consumer, RuntimeConfig config,
                 StateManager<OwnedPartition> stateManager, List<LaneLoop<K, V>> lanes, KeyFunction<K, V> keyFunction,
                 LaneAssigner assigner, DelayScheduler delays, RuntimeMetrics metrics, Clock clock,
                 PartitionListener partitionListener, LongAdder bufferedBytes,
                 Consumer<Throwable> onFatal) {
        this.bufferedBytes = bufferedBytes;
        this.name = name;
        this.consumer = consumer;
        this.config = config;
        this.stateManager = stateManager;
        this.lanes = lanes;
        this.keyFunction = keyFunction;
        this.recordKey = keyFunction == KeyFunction.recordKey();
        this.assigner = assigner;
        this.delays = delays;
        this.metrics = metrics;
        this.clock = clock;
        this.partitionListener = partitionListener;
        this.onFatal = onFatal;
        for (int i = 0; i < lanes.size(); i++) {
            batches.add(new ArrayList<>());
        }
    }

    /** Any thread: stop taking in records and close as {@code mode} says, finishing by {@code deadlineMillis}. */
    void requestClose(CloseMode mode, long deadlineMillis) {
        closeDeadlineMillis = deadlineMillis;
        closeMode = mode;
        consumer.wakeup();
    }

    String name() {
        return name;
    }

    @Override
    public void run() {
        boolean healthy = true;
        Throwable died = null;
        try {
            consumer.subscribe(config.topics(), this);
            while (closeMode == null) {
                pass(config.pollTimeout().toMillis());
            }
            if (closeMode == CloseMode.DRAIN) {
                drain();
            }
        } catch (Throwable t) {
            healthy = false;
            LOG.error("consumer thread {} failed; committing what is done and leaving the group", name, t);
            died = t;
        } finally {
            try {
                release(Set.copyOf(owned.keySet()), true, false);
            } catch (RuntimeException e) {
                LOG.warn("{}: final revoke failed", name, e);
            }
            try {
                long left = closeMode == null
                        ? config.revokeTimeout().toMillis() : closeDeadlineMillis - clock.millis();
                consumer.close(Duration.ofMillis(Math.max(0, left)));
            } catch (RuntimeException e) {
                LOG.warn("{}: closing the consumer failed (healthy={})", name, healthy, e);
            }
            if (died != null) {
                onFatal.accept(died);
            }
        }
    }

    /** One pass of the loop; a wakeup from {@link #requestClose} ends the poll early. */
    private void pass(long pollMillis) {
        try {
            routeHeld();
            updatePauses();
            ConsumerRecords<K, V> records = consumer.poll(Duration.ofMillis(
                    held.isEmpty() ? pollMillis : Math.min(pollMillis, BACKPRESSURE_POLL_MILLIS)));
            if (!records.isEmpty()) {
                take(records);
            }
            maybeCommit();
        } catch (WakeupException e) {
            // requestClose: the caller's loop condition decides
        } catch (RecordDeserializationException e) {
            takeUnreadable(e);
        }
    }

    /**
     * A record that does not deserialize would stop the partition forever: it is taken in like any record, handed to
     * the failure handler (kind NOT_DESERIALIZABLE, null key and value) through an unkeyed lane slot, and the
     * consumer moves past it.
     */
    private void takeUnreadable(RecordDeserializationException e) {
        TopicPartition tp = e.topicPartition();
        OwnedPartition p = owned.get(tp);
        LOG.warn("{}: {}@{} does not deserialize; handing it to the failure handler: {}", name, tp, e.offset(),
                e.getMessage());
        consumer.seek(tp, e.offset() + 1);
        if (p == null) {
            return;
        }
        stateManager.track(p, e.offset());
        if (p.firstTracked < 0) {
            p.firstTracked = e.offset();
        }
        p.highestTracked = e.offset();
        Event<K, V> event = new Event<>(tp.topic(), tp.partition(), e.offset(), null, null,
                e.headers() == null ? new RecordHeaders() : e.headers(), e.timestamp(),
                e.timestampType() == null ? TimestampType.NO_TIMESTAMP_TYPE : e.timestampType(), 1);
        Object key = new Unkeyed(tp, e.offset());
        WorkItem<K, V> item = new WorkItem<>(event, p, key, assigner.acquire(key), System.nanoTime(), 0);
        item.failure = new Failure(Failure.Kind.NOT_DESERIALIZABLE, String.valueOf(e.getMessage()), e, 1);
        held.computeIfAbsent(tp, t -> new ArrayDeque<>()).addLast(item);
    }

    /** Close mode DRAIN: everything paused; route what is held and wait until all taken-in events are done. */
    private void drain() {
        while (clock.millis() < closeDeadlineMillis && !drained()) {
            pass(Math.min(config.pollTimeout().toMillis(), 10));
        }
        if (!drained()) {
            LOG.warn("{}: drain timed out; undone events are dropped and will be read again by the next owner", name);
        }
    }

    private boolean drained() {
        if (!held.isEmpty()) {
            return false;
        }
        for (OwnedPartition p : owned.values()) {
            if (stateManager.inFlightCount(p) > 0) {
                return false;
            }
        }
        return true;
    }

    private void take(ConsumerRecords<K, V> records) {
        long polledAt = System.nanoTime();
        metrics.polled.increment(records.count());
        for (TopicPartition tp : records.partitions()) {
            OwnedPartition p = owned.get(tp);
            if (p == null) {
                continue;
            }
            List<ConsumerRecord<K, V>> polled = records.records(tp);
            if (polled.isEmpty()) {
                continue;
            }
            ArrayDeque<WorkItem<K, V>> waiting = held.get(tp);
            long bytes = 0;
            trackAll(p, polled);
            for (ConsumerRecord<K, V> r : polled) {
                int size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
                bytes += size;
                WorkItem<K, V> item = item(r, p, polledAt, size);
                if (waiting != null) {
                    waiting.addLast(item);
                } else {
                    batches.get(item.lane).add(item);
                }
            }
            bufferedBytes.add(bytes);
            if (p.firstTracked < 0) {
                p.firstTracked = polled.get(0).offset();
            }
            p.highestTracked = polled.get(polled.size() - 1).offset();
        }
        for (int i = 0; i < batches.size(); i++) {
            List<WorkItem<K, V>> batch = batches.get(i);
            if (batch.isEmpty()) {
                continue;
            }
            int accepted = lanes.get(i).lane.offer(batch);
            for (int j = accepted; j < batch.size(); j++) {
                WorkItem<K, V> item = batch.get(j);
                held.computeIfAbsent(item.partition.topicPartition, tp -> new ArrayDeque<>()).addLast(item);
            }
            batch.clear();
        }
    }

    /**
     * The work item of one polled record. With the default key function the routing key is read from the record and
     * the lane makes the {@link Event} (the consumer thread is the runtime's bottleneck on cheap processing); a custom
     * key function is handed the event, which the item then keeps.
     */
    private WorkItem<K, V> item(ConsumerRecord<K, V> r, OwnedPartition p, long polledAt, int size) {
        if (recordKey) {
            Object k = r.key();
            Object key = k instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : k;
            if (key == null) {
                key = new Unkeyed(p.topicPartition, r.offset());
            }
            return new WorkItem<>(r, p, key, assigner.acquire(key), polledAt, size);
        }
        Event<K, V> event = new Event<>(r.topic(), r.partition(), r.offset(), r.key(), r.value(), r.headers(),
                r.timestamp(), r.timestampType(), 1);
        Object key = routingKey(event);
        if (key == null) {
            key = new Unkeyed(p.topicPartition, r.offset());
        }
        return new WorkItem<>(event, p, key, assigner.acquire(key), polledAt, size);
    }

    /** Tracks a poll's offsets of one partition in one StateManager call, before any of them reaches a lane. */
    private void trackAll(OwnedPartition p, List<ConsumerRecord<K, V>> polled) {
        int n = polled.size();
        if (offsets.length < n) {
            offsets = new long[Math.max(n, offsets.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            offsets[i] = polled.get(i).offset();
        }
        stateManager.track(p, offsets, n);
        // advance on every poll, not only at commit time: the done heap then holds about one poll's completions, not
        // a commit interval's (1 s of a fast stream is a million entries, log n deep and out of cache)
        OptionalLong position = stateManager.committable(p);
        if (position.isPresent()) {
            p.lastCommittable = position.getAsLong();
        }
    }

    /** The key function's answer; one that throws leaves the event unkeyed rather than stopping the consumer. */
    private Object routingKey(Event<K, V> event) {
        try {
            return keyFunction.routingKey(event);
        } catch (RuntimeException e) {
            LOG.warn("{}: key function failed on {}; processing it unordered: {}", name, event.coordinates(),
                    e.toString());
            return null;
        }
    }

    /** Routes held-back records in order; a partition stops at its first record whose lane is still full. */
    private void routeHeld() {
        for (Iterator<ArrayDeque<WorkItem<K, V>>> it = held.values().iterator(); it.hasNext(); ) {
            ArrayDeque<WorkItem<K, V>> q = it.next();
            while (!q.isEmpty() && lanes.get(q.peekFirst().lane).lane.offer(q.peekFirst())) {
                q.pollFirst();
            }
            if (q.isEmpty()) {
                it.remove();
            }
        }
    }

    private void updatePauses() {
        int waiting = delays.size();
        int delayLimit = config.delayQueueCapacity();
        delayQueueFull = delayQueueFull ? waiting >= delayLimit * RESUME_FRACTION : waiting >= delayLimit;
        long bytes = bufferedBytes.sum();
        long bytesLimit = config.maxBufferedBytes();
        memoryFull = memoryFull ? bytes >= bytesLimit * RESUME_FRACTION : bytes >= bytesLimit;
        boolean closing = closeMode != null;
        int inFlightLimit = config.maxInFlightPerPartition();
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        for (OwnedPartition p : owned.values()) {
            boolean was = p.paused();
            p.reason(PauseReason.LANE_FULL, held.containsKey(p.topicPartition));
            p.reason(PauseReason.DELAY_QUEUE_FULL, delayQueueFull);
            p.reason(PauseReason.MEMORY_LIMIT, memoryFull);
            p.reason(PauseReason.IN_FLIGHT_LIMIT, inFlightFull(p, inFlightLimit));
            boolean now = p.reason(PauseReason.CLOSING, closing);
            if (now && !was) {
                pause.add(p.topicPartition);
            } else if (!now && was) {
                resume.add(p.topicPartition);
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    /**
     * Whether {@code p} has too many offsets in flight (with hysteresis). Asks the StateManager only when the bound
     * known without it (taken in since the last committable position read) could reach the limit.
     */
    private boolean inFlightFull(OwnedPartition p, int limit) {
        double threshold = p.has(PauseReason.IN_FLIGHT_LIMIT) ? limit * RESUME_FRACTION : limit;
        if (p.firstTracked < 0 || p.endOfTaken() - Math.max(p.firstTracked, p.lastCommittable) < threshold) {
            return false;
        }
        return stateManager.inFlightCount(p) >= threshold;
    }

    private void maybeCommit() {
        long now = clock.millis();
        if (now - lastCommitMillis < config.commitInterval().toMillis()) {
            return;
        }
        lastCommitMillis = now;
        Map<TopicPartition, OffsetAndMetadata> offsets = committable(owned.values());
        if (!offsets.isEmpty()) {
            offsets.forEach((tp, om) -> commitRequested.put(tp, om.offset()));
            consumer.commitAsync(offsets, (done, error) -> {
                if (error == null) {
                    metrics.commitSuccess.increment();
                    committed(done);
                } else {
                    metrics.commitFailure.increment();
                    done.keySet().forEach(commitRequested::remove);
                    if (error instanceof RebalanceInProgressException) {
                        LOG.debug("{}: commit refused during a rebalance; the revoke commits", name);
                    } else {
                        LOG.warn("{}: commit failed, the next interval retries: {}", name, error.toString());
                    }
                }
            });
        }
        for (OwnedPartition p : owned.values()) {
            OptionalLong lag = consumer.currentLag(p.topicPartition);
            if (lag.isPresent()) {
                p.consumerLag = lag.getAsLong();
            }
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> committable(Collection<OwnedPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (OwnedPartition p : partitions) {
            OptionalLong position = stateManager.committable(p);
            if (position.isPresent()) {
                p.lastCommittable = position.getAsLong();
            }
            long already = Math.max(p.committed, commitRequested.getOrDefault(p.topicPartition, -1L));
            if (position.isPresent() && position.getAsLong() > already) {
                offsets.put(p.topicPartition, new OffsetAndMetadata(position.getAsLong()));
            }
        }
        return offsets;
    }

    private void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, om) -> {
            OwnedPartition p = owned.get(tp);
            if (p != null && om.offset() > p.committed) {
                p.committed = om.offset();
            }
        });
    }

    // ---- rebalance listener: called inside poll() on this thread ----

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        metrics.assigned.increment(partitions.size());
        Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
        try {
            committed = consumer.committed(Set.copyOf(partitions), Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.warn("{}: could not read committed offsets of {}: {}", name, partitions, e.toString());
        }
        for (TopicPartition tp : partitions) {
            OwnedPartition p = new OwnedPartition(tp);
            stateManager.assign(p);
            OffsetAndMetadata om = committed.get(tp);
            p.committed = om == null ? -1 : om.offset();
            owned.put(tp, p);
            gauges.put(tp, metrics.partitionGauges(p));
        }
        LOG.info("{}: assigned {}", name, partitions);
        Map<TopicPartition, Long> committedOffsets = new HashMap<>();
        partitions.forEach(tp -> committedOffsets.put(tp, owned.get(tp).committed));
        tell(() -> partitionListener.onAssigned(committedOffsets));
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            metrics.revoked.increment(partitions.size());
            release(partitions, true, closeMode == null);
        }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            metrics.lost.increment(partitions.size());
            release(partitions, false, false);
        }
    }

    /**
     * Gives partitions up: stops routing them (held records are dropped), optionally waits for their taken-in events
     * to be done, then marks them revoked (lanes drop what is still queued), waits for the ones running, commits what
     * is done (unless lost) and forgets them. Every wait ends at the revoke timeout (or the close deadline).
     */
    private void release(Collection<TopicPartition> partitions, boolean commit, boolean waitForTakenIn) {
        List<OwnedPartition> gone = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OwnedPartition p = owned.get(tp);
            if (p != null) {
                gone.add(p);
            }
        }
        if (gone.isEmpty()) {
            return;
        }
        long deadline = closeMode != null ? closeDeadlineMillis : clock.millis() + config.revokeTimeout().toMillis();
        if (waitForTakenIn && !awaitUntil(deadline, () -> {
            routeHeld();
            return gone.stream().allMatch(this::takenInDone);
        })) {
            LOG.warn("{}: revoke timed out waiting for taken-in events; the rest is dropped: {}", name,
                    gone.stream().map(p -> p.topicPartition + " taken in up to " + p.highestTracked + ", "
                            + stateManager.snapshot(p)).toList());
        }
        for (OwnedPartition p : gone) {
            ArrayDeque<WorkItem<K, V>> q = held.remove(p.topicPartition);
            if (q != null) {
                metrics.dropped.increment(q.size());
                q.forEach(w -> {
                    assigner.release(w.routingKey, w.lane);
                    bufferedBytes.add(-w.bytes);
                });
            }
        }
        gone.forEach(p -> p.revoked = true);
        lanes.forEach(LaneLoop::purgeRevoked);
        Set<OwnedPartition> goneSet = Set.copyOf(gone);
        if (!awaitUntil(deadline, () -> lanes.stream().noneMatch(l -> l.busyWith(goneSet)))) {
            LOG.warn("{}: events of {} still running after the revoke timeout", name, partitions);
        }
        if (commit) {
            commitSync(committable(gone));
        }
        for (OwnedPartition p : gone) {
            stateManager.revoke(p);
            owned.remove(p.topicPartition);
            commitRequested.remove(p.topicPartition);
            metrics.remove(gauges.remove(p.topicPartition));
        }
        LOG.info("{}: released {} (commit={})", name, partitions, commit);
        List<TopicPartition> released = gone.stream().map(p -> p.topicPartition).toList();
        tell(() -> partitionListener.onReleased(released));
    }

    private void tell(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("{}: partition listener failed", name, e);
        }
    }

    /** Whether every event of {@code p} taken in during this assignment is done (none held back either). */
    private boolean takenInDone(OwnedPartition p) {
        return !held.containsKey(p.topicPartition) && (p.firstTracked < 0
                || stateManager.committable(p).orElse(-1) >= p.endOfTaken());
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                consumer.commitSync(offsets, config.revokeTimeout());
                metrics.commitSuccess.increment();
                committed(offsets);
                return;
            } catch (WakeupException e) {
                // a close request woke the consumer; the commit still has to happen: try once more
            } catch (RuntimeException e) {
                metrics.commitFailure.increment();
                LOG.warn("{}: final commit of {} failed; the next owner re-reads from the last commit: {}",
                        name, offsets, e.toString());
                return;
            }
        }
    }

    private boolean awaitUntil(long deadlineMillis, java.util.function.BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            if (clock.millis() >= deadlineMillis) {
                return false;
            }
            LockSupport.parkNanos(WAIT_STEP_NANOS);
        }
        return true;
    }

    // ---- status: any thread ----

    /** Any thread: the partitions this loop owns, with their commit state. */
    List<RuntimeStatus.PartitionStatus> partitions() {
        List<RuntimeStatus.PartitionStatus> out = new ArrayList<>();
        for (OwnedPartition p : owned.values()) {
            PartitionSnapshot s = stateManager.snapshot(p);
            out.add(new RuntimeStatus.PartitionStatus(p.topicPartition.topic(), p.topicPartition.partition(), name,
                    known(p.committed), s.committable(), s.oldestInFlight(), s.oldestInFlightAge(),
                    s.inFlightCount(), p.paused(),
                    p.pauseReasons.stream().map(Enum::name).collect(Collectors.toUnmodifiableSet()),
                    known(p.consumerLag)));
        }
        return out;
    }

    private static OptionalLong known(long value) {
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }
}
