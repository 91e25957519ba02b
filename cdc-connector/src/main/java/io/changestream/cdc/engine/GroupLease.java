package io.changestream.cdc.engine;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
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
 * <p>Owns one thread ({@code cdc-lease}), the only one that touches the consumer. {@code onLost} runs on that thread
 * inside the rebalance callback, so the partition is not handed over before it returns (a graceful handover never
 * has two readers; after a session expiry the old holder stops at its next poll).
 */
final class GroupLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GroupLease.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration pollInterval;
    private final Runnable onLost;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile boolean held;
    private volatile boolean running = true;
    private volatile boolean started;

    GroupLease(Map<String, Object> clientProperties, String topic, String groupId, int sessionTimeoutMs, long pollIntervalMs,
               Runnable onLost) {
        this.topic = topic;
        this.pollInterval = Duration.ofMillis(pollIntervalMs);
        this.onLost = onLost;
        Map<String, Object> props = new java.util.HashMap<>(clientProperties);
        props.putAll(Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, groupId,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(100, sessionTimeoutMs / 4),
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, List.of(CooperativeStickyAssignor.class.getName()),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
        this.consumer = new KafkaConsumer<>(props);
        this.thread = new Thread(this::run, "cdc-lease");
        this.thread.setDaemon(true);
    }

    void start() {
        started = true;
        thread.start();
    }

    boolean held() {
        return held;
    }

    /** Blocks until the lease is held (true), or the lease is closed or {@code stop} says so (false). */
    boolean awaitHeld(java.util.function.BooleanSupplier stop) throws InterruptedException {
        lock.lock();
        try {
            while (!held && running && !stop.getAsBoolean()) {
                changed.await(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
            return held && running && !stop.getAsBoolean();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        consumer.pause(partitions);
                        LOG.info("lease on {} acquired", topic);
                        setHeld(true);
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
                consumer.poll(pollInterval);
            }
        } catch (WakeupException e) {
            // close() asked us to stop
        } catch (RuntimeException e) {
            LOG.error("lease thread failed; the lease is given up", e);
            lose(List.of(new TopicPartition(topic, 0)), "failed");
        } finally {
            try {
                consumer.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.warn("lease consumer did not close cleanly: {}", e.toString());
            }
            running = false;
            setHeld(false);
        }
    }

    private void lose(Collection<TopicPartition> partitions, String how) {
        if (held && !partitions.isEmpty()) {
            LOG.info("lease on {} {}: stopping the engine", topic, how);
            setHeld(false);
            onLost.run();
        }
    }

    private void setHeld(boolean value) {
        lock.lock();
        try {
            held = value;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Leaves the group (the lease passes at once to a standby) and joins the lease thread, at most 10 s. */
    @Override
    public void close() {
        if (!started) {
            // never started: the consumer is ours to close here (idempotent)
            running = false;
            consumer.close(Duration.ZERO);
            return;
        }
        if (!running && !thread.isAlive()) {
            return;
        }
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
