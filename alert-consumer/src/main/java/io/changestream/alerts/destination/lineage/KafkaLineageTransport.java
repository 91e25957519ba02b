package io.changestream.alerts.destination.lineage;

import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;

/**
 * OpenLineage to a Kafka topic (what OpenLineage's Kafka transport does): one record per event, key =
 * {@code namespace/jobName}, value = the event JSON; delivered once every record is acked. The producer is shared
 * and owned by the caller — it is the service's own, so the topic must be one of
 * {@link LineageSettings#kafkaTopics()} (the service refuses a catalog topic there at start): any other is refused
 * at construction, which is at save time (a 400) and again before every send. Thread-safe.
 */
public final class KafkaLineageTransport implements LineageTransport {

    private final Producer<String, String> producer;
    private final String topic;
    private final Duration ackTimeout;

    /**
     * @param allowedTopics the allowlist ({@link LineageSettings#kafkaTopics()})
     * @throws DestinationConfigException ({@code config.topic}) when {@code topic} is not in the allowlist
     */
    public KafkaLineageTransport(Producer<String, String> producer, Set<String> allowedTopics, String topic,
                                 Duration ackTimeout) {
        if (!allowedTopics.contains(topic)) {
            throw new DestinationConfigException("config.topic", "'" + topic + "' is not a lineage topic this "
                    + "service writes; allowed: " + new TreeSet<>(allowedTopics)
                    + " (destinations.lineage.kafkaTopics)");
        }
        this.producer = producer;
        this.topic = topic;
        this.ackTimeout = ackTimeout;
    }

    @Override
    public DeliveryResult emit(List<OpenLineage.RunEvent> events) {
        List<Future<RecordMetadata>> acks = new ArrayList<>(events.size());
        for (OpenLineage.RunEvent event : events) {
            String key = event.getJob().getNamespace() + "/" + event.getJob().getName();
            acks.add(producer.send(new ProducerRecord<>(topic, key, OpenLineageClientUtils.toJson(event))));
        }
        long deadline = System.nanoTime() + ackTimeout.toNanos();
        try {
            for (Future<RecordMetadata> ack : acks) {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            return DeliveryResult.delivered();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DeliveryResult.retry(null, "interrupted while waiting for Kafka acks");
        } catch (TimeoutException e) {
            return DeliveryResult.retry(null, "no Kafka ack within " + ackTimeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            return e.getCause() instanceof RetriableException
                    ? DeliveryResult.retry(null, "Kafka send failed: " + e.getCause())
                    : DeliveryResult.permanent("Kafka send failed: " + e.getCause());
        }
    }
}
