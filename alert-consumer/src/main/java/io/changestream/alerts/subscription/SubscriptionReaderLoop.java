package io.changestream.alerts.subscription;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
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
 * Owns one thread and one KafkaConsumer that read the subscriptions topic (no consumer group: every partition
 * assigned), from where {@link ViewProgress} says the view stands (the beginning for a new store), and hand each
 * record to the store. After it has read to the end once, it asks the broker for the end offsets about every
 * quarter of {@code subscriptions.staleAfter} and marks the view fresh when it holds them — so a reader cut off from
 * the broker leaves the view ageing rather than looking current. When its thread ends for any reason other than
 * {@link #close()}, the {@link Listener} hears why; the store decides whether to start a successor.
 */
final class SubscriptionReaderLoop implements AutoCloseable {

    /** Receives one record: key, value (null = tombstone), offset. */
    interface RecordSink {
        void apply(String key, String value, long offset);
    }

    /** What the store hears from its reader (on the reader thread). */
    interface Listener {
        /** The view was confirmed complete. */
        void fresh();

        /** The thread ends; {@code failure} is null after {@link #close()}. */
        void exited(Throwable failure);
    }

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionReaderLoop.class);

    private final SubscriptionStoreSettings settings;
    private final RecordSink sink;
    private final ViewProgress progress;
    private final Listener listener;
    private final Clock clock;
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable injected;

    SubscriptionReaderLoop(SubscriptionStoreSettings settings, RecordSink sink, ViewProgress progress,
                           Listener listener, Clock clock, String threadName) {
        this.settings = settings;
        this.sink = sink;
        this.progress = progress;
        this.listener = listener;
        this.clock = clock;
        Map<String, Object> props = new HashMap<>(settings.kafka());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** Whether the thread is running. */
    boolean running() {
        return running && thread.isAlive();
    }

    void start() {
        thread.start();
    }

    /** Test hook: the reader thread dies of {@code failure} as soon as it notices (at once when it polls). */
    void kill(Throwable failure) {
        injected = failure;
        consumer.wakeup();
    }

    private void run() {
        Throwable failure = null;
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(settings.topic(), settings.startupTimeout());
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + settings.topic() + " does not exist");
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            for (TopicPartition p : partitions) {
                long resume = progress.resumePosition(p.partition());
                if (resume < 0) {
                    consumer.seekToBeginning(List.of(p));
                } else {
                    consumer.seek(p, resume);
                }
            }
            Map<TopicPartition, Long> endAtStart = consumer.endOffsets(partitions, settings.startupTimeout());
            boolean caughtUp = false;
            long checkEveryMillis = Math.max(1, settings.health().staleAfter().toMillis() / 4);
            long nextCheck = 0;
            while (running) {
                throwIfInjected();
                for (ConsumerRecord<String, String> record : consumer.poll(settings.pollTimeout())) {
                    sink.apply(record.key(), record.value(), record.offset());
                }
                throwIfInjected();
                boolean atEnd = true;
                for (TopicPartition p : partitions) {
                    long position = consumer.position(p);
                    progress.appliedUpTo(p.partition(), position);
                    atEnd &= position >= endAtStart.get(p);
                }
                progress.publish();
                long now = clock.millis();
                if (!caughtUp && atEnd) {
                    caughtUp = true;
                    progress.markFresh();
                    listener.fresh();
                    nextCheck = now + checkEveryMillis;
                } else if (caughtUp && now >= nextCheck) {
                    nextCheck = now + checkEveryMillis;
                    if (holdsTheEnd(partitions, Duration.ofMillis(checkEveryMillis))) {
                        progress.markFresh();
                        listener.fresh();
                    }
                }
            }
        } catch (WakeupException e) {
            if (injected != null) {
                failure = injected;
            } else if (running) {
                failure = new IllegalStateException("reader woken unexpectedly", e);
            }
        } catch (Throwable e) {
            failure = e;
        } finally {
            running = false;
            progress.publish();
            try {
                consumer.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                LOG.debug("closing the subscriptions reader's consumer failed", e);
            }
            listener.exited(failure);
        }
    }

    /** Whether the view holds every record the broker has now; false when the broker does not answer in time. */
    private boolean holdsTheEnd(List<TopicPartition> partitions, Duration timeout) {
        Map<TopicPartition, Long> ends;
        try {
            ends = consumer.endOffsets(partitions, timeout);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            // the broker does not answer (the view ages), or the topic is gone (nothing to read: the reader dies)
            List<PartitionInfo> infos = consumer.partitionsFor(settings.topic(), timeout);
            if (infos != null && infos.isEmpty()) {
                throw new IllegalStateException("topic " + settings.topic() + " no longer exists", e);
            }
            return false;
        }
        for (TopicPartition p : partitions) {
            if (consumer.position(p) < ends.getOrDefault(p, Long.MAX_VALUE)) {
                return false;
            }
        }
        return true;
    }

    private void throwIfInjected() throws Throwable {
        Throwable failure = injected;
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(settings.closeTimeout().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
