package io.changestream.alerts.diagnostics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The status endpoints' access to Kafka: one admin client (offsets, the group's commits) and one group-less consumer
 * of raw bytes that reads ranges of records by assignment and seek. The consumer is used by one request thread at a
 * time (every read holds this object's lock); reads are bounded by a record count and a deadline.
 */
final class TopicReader implements AutoCloseable {

    private final Admin admin;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Duration callTimeout;

    TopicReader(Map<String, Object> kafka, String clientId, Duration callTimeout) {
        Map<String, Object> adminProps = new HashMap<>();
        Map<String, Object> consumerProps = new HashMap<>();
        kafka.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                adminProps.put(k, v);
            }
            if (ConsumerConfig.configNames().contains(k)) {
                consumerProps.put(k, v);
            }
        });
        adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        consumerProps.remove(ConsumerConfig.GROUP_ID_CONFIG);
        consumerProps.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        consumerProps.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-reader");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        consumerProps.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        this.admin = Admin.create(adminProps);
        this.consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.callTimeout = callTimeout;
    }

    /** Log ends, log starts and the group's commits of some partitions, read at once (one round trip, not three). */
    record Snapshot(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> begins,
                    Map<TopicPartition, Long> committed) {
    }

    private final Map<List<String>, Cached> partitionCache = new java.util.concurrent.ConcurrentHashMap<>();

    private record Cached(List<TopicPartition> partitions, long at) {
    }

    /** {@link #partitions} remembered for 30 s (partitions are added rarely; a new one shows within that). */
    List<TopicPartition> cachedPartitions(List<String> topics) {
        Cached c = partitionCache.get(topics);
        if (c == null || System.nanoTime() - c.at() > java.util.concurrent.TimeUnit.SECONDS.toNanos(30)) {
            c = new Cached(partitions(topics), System.nanoTime());
            partitionCache.put(topics, c);
        }
        return c.partitions();
    }

    /** The offsets of {@code partitions} and {@code groupId}'s commits (null: none), requested together. */
    Snapshot snapshot(Collection<TopicPartition> partitions, String groupId) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        partitions.forEach(tp -> {
            latest.put(tp, OffsetSpec.latest());
            earliest.put(tp, OffsetSpec.earliest());
        });
        KafkaFuture<Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo>> ends = admin.listOffsets(latest).all();
        KafkaFuture<Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo>> begins =
                admin.listOffsets(earliest).all();
        KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> commits = groupId == null ? null
                : admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata();
        Map<TopicPartition, Long> committed = new HashMap<>();
        if (commits != null) {
            get(commits).forEach((tp, o) -> {
                if (o != null) {
                    committed.put(tp, o.offset());
                }
            });
        }
        return new Snapshot(offsetsOf(get(ends)), offsetsOf(get(begins)), committed);
    }

    private static Map<TopicPartition, Long> offsetsOf(Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> m) {
        return m.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    /** The partitions of the topics. */
    List<TopicPartition> partitions(Collection<String> topics) {
        List<TopicPartition> out = new ArrayList<>();
        get(admin.describeTopics(topics).allTopicNames()).forEach((topic, d) ->
                d.partitions().forEach(p -> out.add(new TopicPartition(topic, p.partition()))));
        out.sort(java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return out;
    }

    /**
     * Reads each partition of {@code ranges} from its start offset, at most {@code quota} records of it and not past
     * {@code until}; hands every record read to {@code sink}, which answers false to stop that partition early.
     * Returns when every range is done, or at {@code deadlineNanos} once every partition still open has given at
     * least one record (a sample of each), or at {@code hardDeadlineNanos} in any case.
     */
    synchronized void read(Map<TopicPartition, long[]> ranges, long deadlineNanos, long hardDeadlineNanos,
                           Predicate<ConsumerRecord<byte[], byte[]>> sink) {
        Map<TopicPartition, long[]> open = new HashMap<>();
        ranges.forEach((tp, r) -> {
            if (r[1] > r[0] && r[2] > 0) {
                open.put(tp, new long[]{r[0], r[1], r[2]}); // from, until (exclusive), quota
            }
        });
        if (open.isEmpty()) {
            return;
        }
        consumer.assign(open.keySet());
        open.forEach((tp, r) -> consumer.seek(tp, r[0]));
        Set<TopicPartition> unsampled = new java.util.HashSet<>(open.keySet());
        try {
            while (!open.isEmpty()) {
                long now = System.nanoTime();
                if (now >= hardDeadlineNanos || (now >= deadlineNanos && unsampled.isEmpty())) {
                    return;
                }
                long left = (unsampled.isEmpty() ? deadlineNanos : hardDeadlineNanos) - now;
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofNanos(left));
                for (TopicPartition tp : records.partitions()) {
                    long[] r = open.get(tp);
                    if (r == null) {
                        continue;
                    }
                    unsampled.remove(tp);
                    for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
                        if (record.offset() >= r[1] || r[2] <= 0) {
                            break;
                        }
                        r[2]--;
                        if (!sink.test(record)) {
                            r[2] = 0;
                        }
                    }
                    long position = consumer.position(tp);
                    if (position >= r[1] || r[2] <= 0) {
                        open.remove(tp);
                        unsampled.remove(tp);
                        consumer.pause(Set.of(tp));
                    }
                }
            }
        } finally {
            consumer.assign(List.of());
        }
    }

    /** The record at {@code offset} of {@code tp}, or null when it is gone (retention, compaction) or not read in time. */
    synchronized ConsumerRecord<byte[], byte[]> at(TopicPartition tp, long offset, long deadlineNanos) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, offset);
        try {
            while (System.nanoTime() < deadlineNanos) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofNanos(
                        Math.max(1, deadlineNanos - System.nanoTime())));
                for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                    if (r.offset() >= offset) {
                        return r.offset() == offset ? r : null;
                    }
                }
                if (consumer.position(tp) > offset) {
                    return null;
                }
            }
            return null;
        } catch (org.apache.kafka.clients.consumer.InvalidOffsetException e) {
            return null; // before the log start: gone
        } finally {
            consumer.assign(List.of());
        }
    }

    private <T> T get(KafkaFuture<T> future) {
        try {
            return future.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer within " + callTimeout + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        consumer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
    }
}
