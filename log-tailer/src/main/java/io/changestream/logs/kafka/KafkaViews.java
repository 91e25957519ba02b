package io.changestream.logs.kafka;

import io.changestream.logs.engine.LogTailerException;
import io.changestream.logs.engine.RunState;
import io.changestream.logs.engine.RunStateView;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Serdes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-only views this server keeps of two topics, as Kafka Streams global stores queried interactively: the
 * {@code pipeline-status} KTable (run state, known pipelines, latest run) and an index of {@code log-chunks}
 * ({@code pipelineFqn/runId + cursorBefore → partition:offset}) that lets any server find the chunk that starts at a
 * viewer's cursor. Global stores: every instance holds all of it, so no query goes to another server. Owns one
 * Kafka Streams instance (its global thread), configured with the pass-through client properties (Streams hands them
 * to its consumers and admin client); queried from any thread. {@link #close()} waits up to 10 s.
 */
public final class KafkaViews implements RunStateView, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaViews.class);
    static final String STATUS_STORE = "run-status";
    static final String INDEX_STORE = "log-chunk-index";
    private static final char INDEX_SEPARATOR = '\u0000';

    private final KafkaStreams streams;
    private final Serde<PipelineRunStatus> statusSerde = Serdes.pipelineRunStatus();

    /** Builds (does not start) the views for {@code instanceId}, keeping stores under {@code stateDir}. */
    public KafkaViews(Map<String, Object> clientProperties, TopicCatalog catalog, Path stateDir, String instanceId) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.globalTable(catalog.pipelineStatus().name(),
                Consumed.with(org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.ByteArray()),
                Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(STATUS_STORE));
        builder.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(INDEX_STORE),
                        org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.String()).withLoggingDisabled(),
                catalog.logChunks().name(),
                Consumed.with(org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.ByteArray()),
                IndexProcessor::new);
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "log-tailer-" + instanceId);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(instanceId).toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueExceptionHandler.class);
        this.streams = new KafkaStreams(builder.build(), props);
    }

    /**
     * Starts the global thread; the views answer once {@link #ready()}. A cluster that refuses this client (wrong
     * credentials, TLS or authorization failure) fails here with the root cause's message (which Kafka keeps free of
     * secrets), and the Streams instance is closed.
     */
    public void start() {
        try {
            streams.start();
        } catch (RuntimeException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            streams.close(Duration.ofSeconds(10));
            throw new LogTailerException("Kafka views could not start: " + root.getClass().getSimpleName() + ": "
                    + root.getMessage(), e);
        }
    }

    /** True once the stores are restored and being kept up to date. */
    public boolean ready() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    @Override
    public RunState state(String pipelineFqn, String runId) {
        byte[] value = statusStore().get(TopicKeys.pipelineRun(pipelineFqn, runId));
        return RunState.of(value == null ? null : parse(value));
    }

    @Override
    public boolean knowsPipeline(String pipelineFqn) {
        try (KeyValueIterator<String, byte[]> it = runsOf(pipelineFqn)) {
            while (it.hasNext()) {
                if (ownedBy(pipelineFqn, it.next().key)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Optional<String> latestRun(String pipelineFqn) {
        PipelineRunStatus latest = null;
        try (KeyValueIterator<String, byte[]> it = runsOf(pipelineFqn)) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                PipelineRunStatus status = ownedBy(pipelineFqn, kv.key) ? parse(kv.value) : null;
                if (status != null && (latest == null
                        || Comparator.comparingLong(PipelineRunStatus::timestamp).compare(status, latest) > 0)) {
                    latest = status;
                }
            }
        }
        return Optional.ofNullable(latest).map(PipelineRunStatus::runId);
    }

    /** Where the chunk of {@code fqn/runId} starting at {@code cursorBefore} is: {@code [partition, offset]}. */
    public Optional<long[]> chunkPosition(String pipelineFqn, String runId, String cursorBefore) {
        String at = indexStore().get(indexKey(TopicKeys.pipelineRun(pipelineFqn, runId), cursorBefore));
        if (at == null) {
            return Optional.empty();
        }
        int colon = at.indexOf(':');
        return Optional.of(new long[] {Long.parseLong(at.substring(0, colon)), Long.parseLong(at.substring(colon + 1))});
    }

    /** Waits until {@link #ready()} or throws after {@code timeout}. */
    public void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready()) {
            if (System.nanoTime() > deadline) {
                throw new LogTailerException("Kafka views not ready after " + timeout + " (state " + streams.state()
                        + ")");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LogTailerException("interrupted while waiting for the Kafka views", e);
            }
        }
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(10));
    }

    private KeyValueIterator<String, byte[]> runsOf(String pipelineFqn) {
        return statusStore().prefixScan(pipelineFqn + TopicKeys.SEPARATOR, new StringSerializer());
    }

    private static boolean ownedBy(String pipelineFqn, String key) {
        return TopicKeys.splitPipelineRun(key)[0].equals(pipelineFqn);
    }

    private PipelineRunStatus parse(byte[] value) {
        try {
            return statusSerde.deserializer().deserialize("", value);
        } catch (RuntimeException e) {
            LOG.debug("skipping a malformed pipeline-status value: {}", e.toString());
            return null;
        }
    }

    private ReadOnlyKeyValueStore<String, byte[]> statusStore() {
        return streams.store(StoreQueryParameters.fromNameAndType(STATUS_STORE,
                QueryableStoreTypes.<String, byte[]>keyValueStore()));
    }

    private ReadOnlyKeyValueStore<String, String> indexStore() {
        return streams.store(StoreQueryParameters.fromNameAndType(INDEX_STORE,
                QueryableStoreTypes.<String, String>keyValueStore()));
    }

    static String indexKey(String runKey, String cursorBefore) {
        return runKey + INDEX_SEPARATOR + cursorBefore;
    }

    /** Keeps the index: one entry per chunk, by where it starts. Runs on the global thread. */
    private static final class IndexProcessor implements Processor<String, byte[], Void, Void> {

        private final Serde<LogChunk> serde = Serdes.logChunk();
        private ProcessorContext<Void, Void> context;
        private KeyValueStore<String, String> index;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
            this.index = context.getStateStore(INDEX_STORE);
        }

        @Override
        public void process(Record<String, byte[]> record) {
            if (record.key() == null || record.value() == null) {
                return;
            }
            LogChunk chunk;
            try {
                chunk = serde.deserializer().deserialize("", record.value());
            } catch (RuntimeException e) {
                LOG.debug("skipping a malformed log-chunks value: {}", e.toString());
                return;
            }
            if (chunk.cursorBefore() == null) {
                return;
            }
            context.recordMetadata().ifPresent(meta -> index.put(indexKey(record.key(), chunk.cursorBefore()),
                    meta.partition() + ":" + meta.offset()));
        }
    }
}
