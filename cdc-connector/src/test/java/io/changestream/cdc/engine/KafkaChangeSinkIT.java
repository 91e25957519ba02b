package io.changestream.cdc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.CdcException;
import io.changestream.cdc.metrics.CdcMetrics;
import io.changestream.cdc.transform.ChangeEventTransform;
import io.changestream.cdc.transform.RowOutcome;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The sink against the real broker: records are marked processed only after their acks, never after a failure. */
class KafkaChangeSinkIT {

    private static KafkaBroker broker;
    private static KafkaProducer<String, byte[]> producer;
    private static final String TOPIC = "sink-it-" + UUID.randomUUID();
    private static final String FAILING_TOPIC = "sink-it-failing-" + UUID.randomUUID();
    private static final String FENCED_TOPIC = "sink-it-fenced-" + UUID.randomUUID();
    private static final LeaseFence NO_LEASE = new LeaseFence(null, "sink-it", GroupLease.NO_EPOCH);

    @BeforeAll
    static void start() {
        broker = Brokers.shared();
        broker.createTopic(TOPIC, 1);
        broker.createTopic(FAILING_TOPIC, 1);
        broker.createTopic(FENCED_TOPIC, 1);
        Map<String, Object> props = KafkaTestClients.producerProps(broker);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class); // as CaptureLoop's
        producer = new KafkaProducer<>(props);
    }

    @AfterAll
    static void stop() {
        producer.close();
    }

    /** The engine's committer, recording what was marked. */
    private static final class RecordingCommitter
            implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
        final List<SourceRecord> marked = new ArrayList<>();
        int batchesFinished;

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record) {
            marked.add(record.record());
        }

        @Override
        public void markBatchFinished() {
            batchesFinished++;
        }

        @Override
        public void markProcessed(RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {
            markProcessed(record);
        }

        @Override
        public DebeziumEngine.Offsets buildOffsets() {
            throw new UnsupportedOperationException("not used by the sink");
        }
    }

    private static RecordChangeEvent<SourceRecord> mapped(RowOutcome outcome, String value) {
        return mapped(TOPIC, outcome, value);
    }

    private static RecordChangeEvent<SourceRecord> mapped(String topic, RowOutcome outcome, String value) {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(ChangeEventTransform.OUTCOME_HEADER, outcome.tag());
        headers.addString(ChangeEventTransform.TABLE_HEADER, "public.change_event");
        headers.addString(ChangeEventTransform.POSITION_HEADER, "0/16B3748");
        headers.addString(ChangeEventTransform.CAPTURED_HEADER, "1005");
        SourceRecord record = new SourceRecord(Map.of("server", "x"), Map.of("lsn", 1L), topic, null,
                Schema.STRING_SCHEMA, "key", Schema.STRING_SCHEMA, value, 1_000L, headers);
        return () -> record;
    }

    @Test
    void marksEveryRecordOfABatchAfterItsAcksAndCountsOutcomes() throws Exception {
        CdcMetrics metrics = new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true);
        AtomicLong lastBatch = new AtomicLong();
        KafkaChangeSink sink = new KafkaChangeSink(producer, 10_000, metrics, lastBatch, NO_LEASE);
        SourceRecord heartbeat = new SourceRecord(Map.of(), Map.of("lsn", 2L), "__debezium-heartbeat.x", null, null,
                null, null);
        List<RecordChangeEvent<SourceRecord>> batch = List.of(mapped(RowOutcome.PRODUCED, "{\"id\":\"1\"}"),
                () -> heartbeat, mapped(RowOutcome.FILTERED, null),
                mapped(RowOutcome.DEAD_LETTERED, "{\"reason\":\"r\"}"));
        RecordingCommitter committer = new RecordingCommitter();

        sink.handleBatch(batch, committer);

        assertEquals(batch.stream().map(RecordChangeEvent::record).toList(), committer.marked, "all, in order");
        assertEquals(1, committer.batchesFinished);
        var written = KafkaTestClients.readAll(broker, TOPIC, Duration.ofSeconds(30));
        assertEquals(2, written.size(), "the produced and the dead-lettered record are in Kafka (acked before marking)");
        assertEquals("sink-it", new String(written.get(0).headers().lastHeader(LeaseFence.CAPTURER_HEADER).value(),
                java.nio.charset.StandardCharsets.UTF_8), "every record names its capturer");
        var traces = written.stream().map(r -> io.changestream.topics.trace.TraceContext.parse(
                r.headers().lastHeader(io.changestream.topics.trace.TraceContext.HEADER).value()).orElseThrow()).toList();
        assertEquals(2, traces.stream().map(io.changestream.topics.trace.TraceContext::traceId).distinct().count(),
                "every record starts its own W3C trace: " + traces);
        assertEquals(1, metrics.count(RowOutcome.PRODUCED));
        assertEquals(1, metrics.count(RowOutcome.FILTERED));
        assertEquals(1, metrics.count(RowOutcome.DEAD_LETTERED));
        assertTrue(lastBatch.get() > 0);
    }

    @Test
    void aBatchWithARejectedSendIsNotMarkedAtAll() {
        CdcMetrics metrics = new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true);
        KafkaChangeSink sink = new KafkaChangeSink(producer, 10_000, metrics, new AtomicLong(), NO_LEASE);
        RecordingCommitter committer = new RecordingCommitter();
        // above the producer's max.request.size (1 MiB): the real client refuses it
        List<RecordChangeEvent<SourceRecord>> batch = List.of(mapped(FAILING_TOPIC, RowOutcome.PRODUCED, "{\"id\":1}"),
                mapped(FAILING_TOPIC, RowOutcome.PRODUCED, "x".repeat(2_000_000)));

        CdcException e = assertThrows(CdcException.Retriable.class, () -> sink.handleBatch(batch, committer));

        assertTrue(e.getMessage().contains("kafka.ack.timeout.ms"), e.getMessage());
        assertEquals(List.of(), committer.marked, "nothing marked: the offsets stay before the batch");
        assertEquals(0, committer.batchesFinished);
    }

    @Test
    void aRunWhoseLeaseIsGoneProducesNothingMore() throws Exception {
        CdcMetrics metrics = new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true);
        // a lease that is not held (never joined): the engine run of epoch 7 is fenced
        GroupLease lease = new GroupLease(Map.of("bootstrap.servers", broker.bootstrapServers()), FENCED_TOPIC,
                FENCED_TOPIC + "-lease", "zombie", 6_000, 1_500, 100, 4_400, () -> { }, metrics);
        KafkaChangeSink sink = new KafkaChangeSink(producer, 10_000, metrics, new AtomicLong(),
                new LeaseFence(lease, "zombie", 7));
        RecordingCommitter committer = new RecordingCommitter();

        CdcException e = assertThrows(CdcException.Retriable.class, () -> sink.handleBatch(
                List.of(mapped(FENCED_TOPIC, RowOutcome.PRODUCED, "{\"id\":\"z\"}")), committer));

        assertTrue(e.getMessage().contains("lease epoch 7 is no longer held by zombie"), e.getMessage());
        assertTrue(e.getMessage().contains("public.change_event at 0/16B3748"), "coordinates: " + e.getMessage());
        assertEquals(List.of(), committer.marked);
        assertEquals(1.0, metrics.errors("fenced"));
        producer.flush();
        assertEquals(0, KafkaTestClients.readAll(broker, FENCED_TOPIC, Duration.ofSeconds(2)).size(),
                "nothing reached the topic");
        lease.close();
    }
}
