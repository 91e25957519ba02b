package io.changestream.alerts.destination.lineage;

import io.changestream.alerts.destination.DeliveryResult;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * and owned by the caller. Thread-safe.
 */
public final class KafkaLineageTransport implements LineageTransport {

    private final Producer<String, String> producer;
    private final String topic;
    private final Duration ackTimeout;

    public KafkaLineageTransport(Producer<String, String> producer, String topic, Duration ackTimeout) {
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
