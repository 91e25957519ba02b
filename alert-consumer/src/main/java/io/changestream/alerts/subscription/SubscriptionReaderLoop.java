package io.changestream.alerts.subscription;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the one thread and the one KafkaConsumer that read the subscriptions topic from the beginning (no consumer
 * group: every partition assigned) and hand each record to the store. Publishes how far it has applied each
 * partition so writers can wait for their own record.
 */
final class SubscriptionReaderLoop implements AutoCloseable {

    /** Receives one record: key, value (null = tombstone), offset. */
    interface RecordSink {
        void apply(String key, String value, long offset);
    }

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionReaderLoop.class);

    private final SubscriptionStoreSettings settings;
    private final RecordSink sink;
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private final Map<Integer, Long> applied = new HashMap<>();
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    SubscriptionReaderLoop(SubscriptionStoreSettings settings, RecordSink sink) {
        this.settings = settings;
        this.sink = sink;
        Map<String, Object> props = new HashMap<>(settings.kafka());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        this.thread = new Thread(this::run, "subscriptions-reader");
        this.thread.setDaemon(true);
    }

    /** True while the reader runs and has read the topic to its end once (for readiness). */
    boolean healthy() {
        return running && failure == null && caughtUp.getCount() == 0;
    }

    void start() {
        thread.start();
    }

    /** Waits until the view holds what the topic held at start; throws 503 when it does not in time. */
    void awaitCaughtUp(Duration timeout) {
        try {
            if (!caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SubscriptionException(503, failure != null ? "cannot read " + settings.topic() + ": "
                        + failure.getMessage() : "did not read " + settings.topic() + " to its end within "
                        + timeout.toMillis() + " ms (subscriptions.startupTimeout)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException(503, "interrupted while reading " + settings.topic(), e);
        }
        if (failure != null) {
            throw new SubscriptionException(503, "cannot read " + settings.topic() + ": " + failure.getMessage(),
                    failure);
        }
    }

    /** Waits until the record at this offset has been applied; false on timeout. */
    boolean awaitApplied(int partition, long offset, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (applied) {
            while (applied.getOrDefault(partition, -1L) < offset) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !running) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(applied, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private void run() {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(settings.topic(), settings.startupTimeout());
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + settings.topic() + " does not exist");
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> endAtStart = consumer.endOffsets(partitions, settings.startupTimeout());
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(settings.pollTimeout())) {
                    sink.apply(record.key(), record.value(), record.offset());
                }
                boolean atEnd = true;
                synchronized (applied) {
                    for (TopicPartition p : partitions) {
                        long position = consumer.position(p);
                        applied.put(p.partition(), position - 1);
                        atEnd &= position >= endAtStart.get(p);
                    }
                    applied.notifyAll();
                }
                if (atEnd) {
                    caughtUp.countDown();
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = new IllegalStateException("reader woken unexpectedly", e);
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("subscriptions reader stopped", e);
        } finally {
            running = false;
            synchronized (applied) {
                applied.notifyAll();
            }
            caughtUp.countDown();
            consumer.close(Duration.ofSeconds(1));
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(settings.closeTimeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
