package io.changestream.runtime;

import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;

/** Topic, record and offset helpers shared by the runtime's broker tests. */
final class RuntimeTestSupport {

    private RuntimeTestSupport() {
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * A fresh topic named after {@code name} with {@code partitions} partitions, holding {@code records} records
     * produced by {@link #produceKeyed} over {@code keys} keys; returns its name.
     */
    static String keyedTopic(KafkaBroker broker, String name, int partitions, int records, int keys) throws Exception {
        String topic = unique(name);
        broker.createTopic(topic, partitions);
        produceKeyed(broker, topic, records, keys);
        return topic;
    }

    /** Produces {@code count} records keyed {@code k0..k(keys-1)} round robin, values {@code v<i>}. */
    static void produceKeyed(KafkaBroker broker, String topic, int count, int keys) throws Exception {
        List<ProducerRecord<String, String>> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>(topic, "k" + (i % keys), "v" + i));
        }
        produce(broker, topic, records);
    }

    /**
     * Produces {@code records} to the new {@code topic} and checks it then holds exactly that many. One request in
     * flight without idempotence: right after a topic is created, the idempotent producer can fail with
     * {@code OutOfOrderSequenceException} on a busy machine.
     */
    static void produce(KafkaBroker broker, String topic, List<ProducerRecord<String, String>> records)
            throws Exception {
        Map<String, Object> props = KafkaTestClients.producerProps(broker);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
            records.forEach(r -> acks.add(producer.send(r)));
            producer.flush();
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
        long written = endOffsets(broker, topic).values().stream().mapToLong(Long::longValue).sum();
        if (written != records.size()) {
            throw new IllegalStateException(topic + " holds " + written + " records, expected " + records.size());
        }
    }

    /** A config builder for {@code topic} and a fresh group, with short backoffs and commit interval. */
    static RuntimeConfig.Builder config(KafkaBroker broker, String topic, String group) {
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", broker.bootstrapServers());
        kafka.put("group.id", group);
        kafka.put("auto.offset.reset", "earliest");
        return RuntimeConfig.builder(List.of(topic), kafka)
                .initialBackoff(Duration.ofMillis(5))
                .maxBackoff(Duration.ofMillis(50))
                .commitInterval(Duration.ofMillis(100))
                .closeTimeout(Duration.ofSeconds(20));
    }

    static ConsumerRuntime.Builder<String, String> runtime(RuntimeConfig config, Processor<String, String> processor) {
        return ConsumerRuntime.builder(config, StringDeserializer::new, StringDeserializer::new, processor).seed(42);
    }

    /** Log end offsets of every partition of {@code topic}. */
    static Map<TopicPartition, Long> endOffsets(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                spec.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r =
                    admin.listOffsets(spec).all().get(30, TimeUnit.SECONDS);
            return r.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        }
    }

    /** Committed offsets of {@code group} (partitions without a commit are absent). */
    static Map<TopicPartition, Long> committed(KafkaBroker broker, String group) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> out = new HashMap<>();
            m.forEach((tp, om) -> {
                if (om != null) {
                    out.put(tp, om.offset());
                }
            });
            return out;
        }
    }

    /** Waits (at most {@code within}) until {@code group} has committed every non-empty partition of its end. */
    static void awaitCommittedToTheEnd(KafkaBroker broker, String topic, String group, Duration within)
            throws Exception {
        Map<TopicPartition, Long> ends = nonEmptyEnds(broker, topic);
        Awaitility.await().atMost(within).until(() -> committed(broker, group).equals(ends));
    }

    /** End offsets of partitions that hold records, for comparing with {@link #committed}. */
    static Map<TopicPartition, Long> nonEmptyEnds(KafkaBroker broker, String topic) throws Exception {
        return endOffsets(broker, topic).entrySet().stream().filter(e -> e.getValue() > 0)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }
}
