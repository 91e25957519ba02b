package io.changestream.ops.dlq;

import io.changestream.ops.OpsException;
import io.changestream.ops.kafka.KafkaClientProperties;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Serdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Reads dead-lettered alerts from {@code alert-dlq} and replays them onto {@code changes}, the normal path, so the
 * alert-consumer delivers them again (the ledger and the Idempotency-Key still guard against duplicates). A replayed
 * record carries {@value #REPLAY_SUBSCRIPTION_HEADER} (the subscription it is replayed for) and
 * {@value #REPLAY_SOURCE_HEADER} ({@code alert-dlq} partition:offset). Reads without a consumer group (nothing is
 * committed). Called from one thread; every wait is bounded by the timeout.
 */
public final class DeadLetters {

    /** Header naming the subscription a replayed event is meant for. */
    public static final String REPLAY_SUBSCRIPTION_HEADER = "cs.replay.subscription";
    /** Header naming the dead letter a replayed event came from ({@code partition:offset} of alert-dlq). */
    public static final String REPLAY_SOURCE_HEADER = "cs.replay.source";

    private final KafkaClientProperties kafka;
    private final TopicCatalog catalog;
    private final Duration timeout;

    /** One dead letter and where it is. */
    public record Entry(int partition, long offset, Instant timestamp, FailedEvent failed) {
    }

    /**
     * @param kafka   client properties (TLS/SASL pass through)
     * @param catalog the topic catalog (namespace)
     * @param timeout bound on reading to the end and on each acknowledgement
     */
    public DeadLetters(KafkaClientProperties kafka, TopicCatalog catalog, Duration timeout) {
        this.kafka = Objects.requireNonNull(kafka, "kafka");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * The dead letters of {@code subscriptionId} (every subscription when null) written at or after {@code since}
     * (from the start when null), oldest first per partition, at most {@code limit}; reads up to the end offsets taken
     * at the call.
     */
    public List<Entry> list(String subscriptionId, Instant since, int limit) {
        if (limit < 1) {
            throw new OpsException("--limit must be >= 1, was " + limit);
        }
        String topic = catalog.alertDlq().name();
        Map<String, Object> props = kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.CLIENT_ID_CONFIG, "changestream-ops-dlq",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class));
        List<Entry> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, timeout);
            if (since == null) {
                consumer.seekToBeginning(parts);
            } else {
                Map<TopicPartition, Long> query = new HashMap<>();
                parts.forEach(tp -> query.put(tp, since.toEpochMilli()));
                Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, timeout);
                parts.forEach(tp -> consumer.seek(tp, found.get(tp) == null ? end.get(tp) : found.get(tp).offset()));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (parts.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp)) && out.size() < limit) {
                if (System.nanoTime() > deadline) {
                    throw new OpsException("could not read " + topic + " to its end within " + timeout);
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition())) || r.value() == null) {
                        continue;
                    }
                    FailedEvent failed = Serdes.failedEvent().fromJson(r.value());
                    if ((subscriptionId == null || subscriptionId.equals(failed.subscriptionId()))
                            && out.size() < limit) {
                        out.add(new Entry(r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()), failed));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Produces each entry's change event to {@code changes} (key entityId, the replay headers) and waits for every
     * ack.
     *
     * @return the {@code partition:offset} on {@code changes} of each replayed event, in order
     */
    public List<String> replay(List<Entry> entries) {
        String topic = catalog.changes().name();
        Map<String, Object> props = kafka.with(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.CLIENT_ID_CONFIG, "changestream-ops-dlq-replay",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
        List<String> positions = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (Entry e : entries) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic,
                        TopicKeys.change(e.failed().changeEvent()), Serdes.changeEvent().toJson(e.failed().changeEvent()));
                record.headers().add(REPLAY_SUBSCRIPTION_HEADER,
                        e.failed().subscriptionId().getBytes(StandardCharsets.UTF_8));
                record.headers().add(REPLAY_SOURCE_HEADER,
                        (e.partition() + ":" + e.offset()).getBytes(StandardCharsets.UTF_8));
                acks.add(producer.send(record));
            }
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                RecordMetadata m = ack.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                positions.add(m.partition() + ":" + m.offset());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OpsException("interrupted while replaying", e);
        } catch (ExecutionException e) {
            throw new OpsException("replaying to " + topic + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new OpsException("replaying to " + topic + ": no ack within " + timeout, e);
        }
        return positions;
    }
}
