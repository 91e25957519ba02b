package io.changestream.cdc.engine;

import io.changestream.cdc.metrics.CdcMetrics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease held through membership of a consumer group subscribed to a one-partition topic: the member that is
 * assigned the partition holds it. A holder that dies loses it after the group's session timeout; one that stops
 * leaves the group at once. Cooperative-sticky assignment keeps the partition with its holder when a standby joins.
 * The partition is paused: nothing is ever fetched.
 *
 * <p><b>Epoch.</b> Each acquisition is numbered by the group generation in which the partition was assigned; a later
 * holder always has a larger epoch. Produced records carry it (see {@link LeaseFence}), so the broker's log shows who
 * captured under which lease.
 *
 * <p><b>Renewal.</b> A holder proves its membership every heartbeat interval by committing to the lease partition
 * (the coordinator refuses a commit from a member it expired; while the group rebalances, when the consumer refuses
 * commits, the coordinator listing the member — asked by an admin client over its own connection — proves it, as a
 * member that heartbeats or waits in a join cannot be expired). It trusts the lease for
 * {@link io.changestream.cdc.CdcConfig.Standby#validityMs()} after the send time of its last successful renewal;
 * a holder cut off from the coordinator therefore gives the lease up — stops the engine — before the coordinator's
 * session timeout can hand it to a standby. It then leaves and rejoins with a fresh consumer.
 *
 * <p>One thread runs {@link #run()} (the {@code cdc-lease} thread the {@link Supervisor} owns), the only one that
 * touches the consumer. {@code onLost} runs on that thread, inside the rebalance callback on a revocation, so the
 * partition is not handed over before it returns. {@link #held()}, {@link #epoch()} and {@link #close()}: any thread.
 */
final class GroupLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GroupLease.class);

    /** Not held. */
    static final long NO_EPOCH = -1;

    private final Map<String, Object> consumerProps;
    private final Map<String, Object> adminProps;
    private final String groupId;
    private final String topic;
    private final String instanceId;
    private final Duration pollInterval;
    private final long heartbeatIntervalMs;
    private final long validityNanos;
    private final Runnable onLost;
    private final CdcMetrics metrics;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    /** Asks the coordinator about the group while it rebalances; lease thread only, created on first need. */
    private Admin admin;
    /** The epoch of the current holding; {@link #NO_EPOCH} when not held. Written by the lease thread only. */
    private volatile long epoch = NO_EPOCH;
    private volatile long validUntilNanos;
    private volatile boolean running = true;
    private volatile Error injected;

    GroupLease(Map<String, Object> clientProperties, String topic, String groupId, String instanceId,
               int sessionTimeoutMs, int heartbeatIntervalMs, long pollIntervalMs, long validityMs, Runnable onLost,
               CdcMetrics metrics) {
        this.topic = topic;
        this.instanceId = instanceId;
        this.pollInterval = Duration.ofMillis(pollIntervalMs);
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.validityNanos = TimeUnit.MILLISECONDS.toNanos(validityMs);
        this.onLost = onLost;
        this.metrics = metrics;
        this.groupId = groupId;
        Map<String, Object> adminConfig = new HashMap<>(clientProperties);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, groupId + "-" + instanceId + "-admin");
        this.adminProps = Map.copyOf(adminConfig);
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.putAll(Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, groupId,
                ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + instanceId,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, heartbeatIntervalMs,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(CooperativeStickyAssignor.class.getName()),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        this.consumerProps = Map.copyOf(props);
    }

    /** True while this instance holds the lease and its last renewal is recent enough to trust. Any thread. */
    boolean held() {
        return epoch != NO_EPOCH && System.nanoTime() - validUntilNanos < 0;
    }

    /** True while the lease of {@code expectedEpoch} is held (the fence before each produced batch). Any thread. */
    boolean heldAt(long expectedEpoch) {
        return expectedEpoch != NO_EPOCH && epoch == expectedEpoch && held();
    }

    /** The epoch of the current holding, or {@link #NO_EPOCH}. */
    long epoch() {
        return epoch;
    }

    /** Blocks until the lease is held (true), or the lease is closed or {@code stop} says so (false). */
    boolean awaitHeld(BooleanSupplier stop) throws InterruptedException {
        lock.lock();
        try {
            while (!held() && running && !stop.getAsBoolean()) {
                changed.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
            return held() && running && !stop.getAsBoolean();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The lease thread's body: consumer sessions one after another until {@link #close()}. A session ends when the
     * lease expired without renewal, the coordinator fenced this member, or a client call failed; then the consumer
     * is closed (leaving the group) and a new one joins after one poll interval. Returns only once closed; an
     * {@link Error} escapes (the supervisor restarts the thread).
     */
    void run() {
        while (running) {
            try {
                session();
            } catch (WakeupException e) {
                // close() asked us to stop
            } catch (KafkaException | IllegalStateException e) {
                metrics.error("lease");
                LOG.warn("lease session on {} failed ({}); rejoining in {} ms", topic, e.toString(),
                        pollInterval.toMillis());
                pauseQuietly();
            }
        }
    }

    private void session() {
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProps);
        consumer = c;
        TopicPartition partition = new TopicPartition(topic, 0);
        long nextRenewal = 0;
        try {
            if (!running) {
                return;
            }
            c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        c.pause(partitions);
                        acquire(c.groupMetadata().generationId());
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    lose(partitions, "revoked");
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    lose(partitions, "lost");
                }
            });
            while (running) {
                Error failure = injected;
                if (failure != null) {
                    injected = null;
                    throw failure;
                }
                c.poll(pollInterval);
                if (epoch == NO_EPOCH) {
                    continue;
                }
                long now = System.nanoTime();
                if (now - nextRenewal >= 0) {
                    nextRenewal = now + TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs);
                    if (!renew(c, partition)) {
                        return;
                    }
                }
                if (!held()) {
                    metrics.error("lease");
                    LOG.warn("lease on {} epoch {} not renewed within {} ms (coordinator unreachable?): stopping the "
                            + "engine and rejoining", topic, epoch, TimeUnit.NANOSECONDS.toMillis(validityNanos));
                    lose(List.of(partition), "expired");
                    return;
                }
            }
        } finally {
            consumer = null;
            lose(List.of(partition), "given up");
            closeAdmin();
            try {
                c.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                metrics.error("lease");
                LOG.warn("lease consumer on {} did not close cleanly: {}", topic, e.toString());
            }
        }
    }

    /**
     * Proves membership by a commit the coordinator checks against the member id and generation. False when the
     * coordinator fenced this member (the session must end); a retriable failure only leaves the validity running out.
     */
    private boolean renew(KafkaConsumer<byte[], byte[]> c, TopicPartition partition) {
        long sentAt = System.nanoTime();
        long current = epoch;
        try {
            c.commitSync(Map.of(partition, new OffsetAndMetadata(0, instanceId + " epoch " + current)),
                    Duration.ofMillis(heartbeatIntervalMs));
            if (epoch == current) {
                validUntilNanos = sentAt + validityNanos;
            }
            return true;
        } catch (RebalanceInProgressException e) {
            // a standby joins or a member died: the consumer refuses commits until the group is stable again, which
            // can take a session timeout (the coordinator waits for a dead member to expire), and the broker answers
            // nothing else on this consumer's connection while its join is pending. A member that heartbeats or
            // waits in a join cannot be expired, so the coordinator listing this member, asked over a connection of
            // its own, proves the holding as a commit would.
            if (coordinatorKnows(c.groupMetadata().memberId()) && epoch == current) {
                validUntilNanos = sentAt + validityNanos;
            }
            return true;
        } catch (RetriableException e) {
            LOG.debug("lease renewal on {} not confirmed: {}", topic, e.toString());
            return true;
        } catch (CommitFailedException | FencedInstanceIdException e) {
            metrics.error("lease");
            LOG.warn("lease on {} epoch {}: the coordinator no longer knows this member ({}); stopping the engine",
                    topic, current, e.toString());
            lose(List.of(partition), "fenced");
            return false;
        }
    }

    /** True when the group coordinator, asked through the lease's admin client, lists {@code memberId}. */
    private boolean coordinatorKnows(String memberId) {
        try {
            if (admin == null) {
                admin = Admin.create(adminProps);
            }
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId),
                            new DescribeConsumerGroupsOptions().timeoutMs((int) heartbeatIntervalMs))
                    .describedGroups().get(groupId).get(heartbeatIntervalMs, TimeUnit.MILLISECONDS);
            return group.members().stream().anyMatch(m -> m.consumerId().equals(memberId));
        } catch (ExecutionException | java.util.concurrent.TimeoutException | KafkaException e) {
            LOG.debug("lease renewal on {} during a rebalance not confirmed: {}", topic, e.toString());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void acquire(long generation) {
        lock.lock();
        try {
            validUntilNanos = System.nanoTime() + validityNanos;
            epoch = generation;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        LOG.info("lease on {} acquired by {} (epoch {})", topic, instanceId, generation);
    }

    private void lose(Collection<TopicPartition> partitions, String how) {
        if (epoch == NO_EPOCH || partitions.isEmpty()) {
            return;
        }
        long lost = epoch;
        lock.lock();
        try {
            epoch = NO_EPOCH;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        LOG.info("lease on {} epoch {} {}: stopping the engine", topic, lost, how);
        onLost.run();
    }

    private void closeAdmin() {
        Admin a = admin;
        admin = null;
        if (a != null) {
            try {
                a.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                metrics.error("lease");
                LOG.warn("lease admin client on {} did not close cleanly: {}", topic, e.toString());
            }
        }
    }

    private void pauseQuietly() {
        lock.lock();
        try {
            if (running) {
                changed.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    /** Test hook: the lease thread throws {@code failure} at its next poll, as if it had crashed. */
    void crash(Error failure) {
        injected = failure;
    }

    /** Asks the lease thread to leave the group (the lease passes at once to a standby); the supervisor joins it. */
    @Override
    public void close() {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
