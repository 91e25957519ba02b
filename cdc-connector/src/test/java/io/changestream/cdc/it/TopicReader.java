package io.changestream.cdc.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.serde.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from the beginning and keeps what it read, so a test can wait for records with Awaitility without
 * re-reading the topic each time. Single test thread.
 */
public final class TopicReader implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final List<ConsumerRecord<String, String>> records = new ArrayList<>();

    public TopicReader(KafkaBroker broker, String topic) {
        this(broker, topic, Map.of());
    }

    /** A reader whose consumer also gets {@code clientProperties} (security settings). */
    public TopicReader(KafkaBroker broker, String topic, Map<String, Object> clientProperties) {
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.putAll(clientProperties);
        consumer = new KafkaConsumer<>(props);
        List<TopicPartition> parts = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
        consumer.assign(parts);
        consumer.seekToBeginning(parts);
    }

    /** Polls once (briefly) and returns everything read so far. */
    public List<ConsumerRecord<String, String>> poll() {
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
        return records;
    }

    /** Values read so far, parsed. */
    public List<JsonNode> values() {
        poll();
        return records.stream().map(r -> parse(r.value())).toList();
    }

    public static JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError("not JSON on the topic: " + json, e);
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
