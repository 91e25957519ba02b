package io.changestream.logs.kafka;

import io.changestream.logs.engine.Replayer;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Serdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays a run exactly from a cursor out of {@code log-chunks}: looks the chunk starting at the cursor up in the
 * {@link KafkaViews} index, reads it at its offset, follows {@code cursorAfter} to the next one, until the chain
 * reaches a cursor the live tailer holds. A chunk whose offset the topic no longer has (retention) or a cursor the
 * index does not know after {@code indexWait} gives {@link Result#NOT_FOUND}: the viewer gets {@code truncated}.
 * Owns one consumer (assign mode, no group); replays are serialized on it (synchronized), called from the replay
 * executor.
 */
public final class KafkaReplayer implements Replayer, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaReplayer.class);
    private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_CHUNKS = 100_000;

    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaViews index;
    private final String topic;
    private final Duration indexWait;
    private final Map<Long, ConsumerRecord<String, byte[]>> fetched = new HashMap<>();
    private TopicPartition fetchedFrom;

    /** A replayer reading the catalog's {@code log-chunks} through {@code index}, with bootstrap and security settings. */
    public KafkaReplayer(Map<String, Object> clientProperties, TopicCatalog catalog, KafkaViews index,
                         Duration indexWait) {
        this.topic = catalog.logChunks().name();
        this.index = index;
        this.indexWait = indexWait;
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.putAll(Map.of(
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500));
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public synchronized Result replay(String pipelineFqn, String runId, String fromCursor, Set<String> stopCursors,
                                      long maxBytes) {
        String runKey = TopicKeys.pipelineRun(pipelineFqn, runId);
        fetched.clear();
        fetchedFrom = null;
        List<LogChunk> chain = new ArrayList<>();
        long bytes = 0;
        String at = fromCursor;
        while (!stopCursors.contains(at)) {
            Optional<long[]> position = lookup(pipelineFqn, runId, at);
            LogChunk chunk = position.map(p -> readAt(new TopicPartition(topic, (int) p[0]), p[1])).orElse(null);
            if (chunk == null || !chunk.key().equals(runKey) || !at.equals(chunk.cursorBefore())) {
                return Result.NOT_FOUND;
            }
            chain.add(chunk);
            bytes += chunk.text().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > maxBytes || chain.size() > MAX_CHUNKS) {
                LOG.info("replay of {} from {} exceeds {} bytes; serving it as truncated", runKey, fromCursor,
                        maxBytes);
                return Result.NOT_FOUND;
            }
            at = chunk.cursorAfter();
        }
        return new Result(chain, at);
    }

    @Override
    public synchronized void close() {
        consumer.close(Duration.ofSeconds(5));
    }

    /** The index entry, waiting up to {@code indexWait} for a chunk produced a moment ago to be indexed. */
    private Optional<long[]> lookup(String pipelineFqn, String runId, String cursor) {
        long deadline = System.nanoTime() + indexWait.toNanos();
        while (true) {
            Optional<long[]> found = index.chunkPosition(pipelineFqn, runId, cursor);
            if (found.isPresent() || System.nanoTime() > deadline) {
                return found;
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
    }

    /** The chunk at {@code offset}, or null when the topic no longer holds it. */
    private LogChunk readAt(TopicPartition tp, long offset) {
        if (!tp.equals(fetchedFrom) || !fetched.containsKey(offset)) {
            if (!fetch(tp, offset)) {
                return null;
            }
        }
        ConsumerRecord<String, byte[]> record = fetched.get(offset);
        if (record == null) {
            return null;
        }
        try {
            return Serdes.logChunk().deserializer().deserialize(topic, record.value());
        } catch (RuntimeException e) {
            return null;
        }
    }

    private boolean fetch(TopicPartition tp, long offset) {
        fetched.clear();
        fetchedFrom = tp;
        consumer.assign(List.of(tp));
        Long start = consumer.beginningOffsets(List.of(tp)).get(tp);
        if (start == null || offset < start) {
            return false;
        }
        consumer.seek(tp, offset);
        long deadline = System.nanoTime() + FETCH_TIMEOUT.toNanos();
        try {
            while (!fetched.containsKey(offset) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100)).records(tp)) {
                    fetched.put(r.offset(), r);
                }
            }
        } catch (OffsetOutOfRangeException e) {
            return false;
        }
        return fetched.containsKey(offset);
    }
}
