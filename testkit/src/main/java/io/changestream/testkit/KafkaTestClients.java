package io.changestream.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Producer, consumer and topic helpers for tests against a {@link KafkaBroker}. */
public final class KafkaTestClients {

    private KafkaTestClients() {
    }

    /** Creates a topic (replication factor 1) and waits until its metadata is visible. */
    public static void createTopic(KafkaBroker broker, String name, int partitions, Map<String, String> configs) {
        try (Admin admin = broker.admin()) {
            try {
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                        .all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            Instant deadline = Instant.now().plusSeconds(30);
            while (true) {
                try {
                    Map<String, TopicDescription> d = admin.describeTopics(List.of(name)).allTopicNames()
                            .get(30, TimeUnit.SECONDS);
                    if (d.get(name).partitions().size() == partitions
                            && d.get(name).partitions().stream().allMatch(p -> p.leader() != null)) {
                        return;
                    }
                } catch (ExecutionException e) {
                    // metadata of a just-created topic propagates a moment later
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new HarnessException("topic " + name + " did not get leaders in 30 s");
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HarnessException("interrupted while creating topic " + name, e);
        } catch (Exception e) {
            throw new HarnessException("could not create topic " + name, e);
        }
    }

    /** Base producer properties: acks=all, idempotent, String serializers. */
    public static Map<String, Object> producerProps(KafkaBroker broker) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return p;
    }

    /** Base consumer properties: a fresh group, earliest, no auto commit, String deserializers. */
    public static Map<String, Object> consumerProps(KafkaBroker broker) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "testkit-" + UUID.randomUUID());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return c;
    }

    /** Sends every record and waits for all acks. */
    public static void produce(KafkaBroker broker, List<ProducerRecord<String, String>> records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(broker))) {
            var futures = records.stream().map(producer::send).collect(Collectors.toList());
            producer.flush();
            for (var f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HarnessException("interrupted while producing", e);
        } catch (Exception e) {
            throw new HarnessException("producing to the test broker failed", e);
        }
    }

    /**
     * Reads every partition of {@code topic} from the beginning (no consumer group) until
     * {@code expected} records arrived or {@code timeout} passed, and returns what arrived.
     */
    public static List<ConsumerRecord<String, String>> consume(KafkaBroker broker, String topic, int expected,
                                                               Duration timeout) {
        Map<String, Object> props = consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Instant deadline = Instant.now().plus(timeout);
            while (out.size() < expected && Instant.now().isBefore(deadline)) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** Reads everything currently in {@code topic} (up to the end offsets taken at the call). */
    public static List<ConsumerRecord<String, String>> readAll(KafkaBroker broker, String topic, Duration timeout) {
        Map<String, Object> props = consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            Instant deadline = Instant.now().plus(timeout);
            Set<TopicPartition> pending = end.entrySet().stream().filter(e -> e.getValue() > 0)
                    .map(Map.Entry::getKey).collect(Collectors.toSet());
            while (!pending.isEmpty()) {
                if (Instant.now().isAfter(deadline)) {
                    throw new HarnessException("could not read " + topic + " to its end in " + timeout);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                pending.removeIf(tp -> consumer.position(tp) >= end.get(tp));
            }
        }
        return out;
    }
}
