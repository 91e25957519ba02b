package io.changestream.logs.kafka;

import io.changestream.logs.engine.ChunkPublisher;
import io.changestream.logs.engine.LogMetrics;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces every chunk a tailer reads to {@code log-chunks} (key {@code pipelineFqn/runId}, so a run's chunks stay in
 * order on one partition; idempotent, acks=all). Sends are asynchronous; a send blocks at most
 * {@code maxBlock} when the producer buffer is full, and a failure is counted, never thrown at the tailer. Called
 * from poll threads; the producer is thread-safe. {@link #close()} flushes for up to 5 s.
 */
public final class KafkaChunkPublisher implements ChunkPublisher, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaChunkPublisher.class);

    private final KafkaProducer<String, LogChunk> producer;
    private final String topic;
    private final LogMetrics metrics;

    /** A publisher to the catalog's {@code log-chunks}; {@code clientProperties} hold bootstrap and security settings. */
    public KafkaChunkPublisher(Map<String, Object> clientProperties, TopicCatalog catalog, Duration maxBlock,
                               LogMetrics metrics) {
        this.topic = catalog.logChunks().name();
        this.metrics = metrics;
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) maxBlock.toMillis(),
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"));
        this.producer = new KafkaProducer<>(props, new StringSerializer(), Serdes.logChunk().serializer());
    }

    @Override
    public void publish(LogChunk chunk) {
        try {
            producer.send(new ProducerRecord<>(topic, chunk.key(), chunk), (meta, error) -> {
                metrics.published(error == null);
                if (error != null) {
                    LOG.warn("chunk of {} not stored in {}: {}", chunk.key(), topic, error.toString());
                }
            });
        } catch (RuntimeException e) {
            metrics.published(false);
            LOG.warn("chunk of {} not stored in {}: {}", chunk.key(), topic, e.toString());
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
