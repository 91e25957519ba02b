package io.changestream.cdc.engine;

import io.changestream.cdc.CdcException;
import io.changestream.cdc.metrics.CdcMetrics;
import io.changestream.cdc.transform.ChangeEventTransform;
import io.changestream.cdc.transform.RowOutcome;
import io.changestream.topics.trace.TraceContext;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The engine's ChangeConsumer: sends every produced or dead-lettered record of a batch (idempotent producer,
 * acks=all), waits for all acks, and only then marks the batch's records processed, so offsets committed to
 * {@code cdc-offsets} never pass a row that is not in Kafka. A missing ack fails the batch (and the engine, which the
 * capture loop restarts from the last committed offset: at-least-once, duplicates carry the same event id).
 * Called by the engine's single handler thread (ordered processing); the producer is owned by the capture loop.
 *
 * <p>Before a batch is sent, the {@link LeaseFence} of this engine run is checked: a run whose lease is gone produces
 * nothing more (the batch fails, nothing of it is marked processed). Every record carries the fence's headers (the
 * capturing instance and its lease epoch) and a W3C {@code traceparent} ({@link TraceContext}, a new trace per
 * record) that the alert service continues up to the webhook request.
 */
final class KafkaChangeSink implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    /** Header with the capture time (epoch ms) the SMT read from Debezium's envelope. */
    static final String CAPTURED_HEADER = ChangeEventTransform.CAPTURED_HEADER;
    /** The SMT's headers ({@code cs.outcome}, {@code cs.table}, …), passed on to Kafka as on Connect. */
    private static final String SMT_HEADER_PREFIX = "cs.";
    /** A capture time: epoch milliseconds (compiled once: it is checked for every row). */
    private static final Pattern CAPTURE_TIME = Pattern.compile("\\d{1,18}");

    private final Producer<String, byte[]> producer;
    private final long ackTimeoutMs;
    private final CdcMetrics metrics;
    private final AtomicLong lastBatchNanos;
    private final LeaseFence fence;

    /**
     * @param lastBatchNanos set to {@link System#nanoTime()} after each handled batch (heartbeats included): proof
     *                       that the engine streams, not merely that it is connected
     * @param fence          checked before each batch; its headers go on every record
     */
    KafkaChangeSink(Producer<String, byte[]> producer, long ackTimeoutMs, CdcMetrics metrics,
                    AtomicLong lastBatchNanos, LeaseFence fence) {
        this.producer = producer;
        this.ackTimeoutMs = ackTimeoutMs;
        this.metrics = metrics;
        this.lastBatchNanos = lastBatchNanos;
        this.fence = fence;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
                            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        long start = System.nanoTime();
        List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
        fenceBefore(records);
        for (RecordChangeEvent<SourceRecord> event : records) {
            SourceRecord record = event.record();
            RowOutcome outcome = outcome(record);
            if (outcome != null && outcome.isProduced()) {
                acks.add(producer.send(new ProducerRecord<>(record.topic(), null, record.timestamp(),
                        (String) record.key(), valueBytes(record.value()), headers(record))));
            }
        }
        awaitAcks(acks, start, records);
        for (RecordChangeEvent<SourceRecord> event : records) {
            count(event.record());
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
        lastBatchNanos.set(System.nanoTime());
    }

    /** The mapped value: the SMT's UTF-8 bytes as they are ({@code value.format=bytes}), or a String's. */
    private static byte[] valueBytes(Object value) {
        if (value == null || value instanceof byte[]) {
            return (byte[]) value;
        }
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The fence's headers, the SMT's ({@code cs.outcome}, {@code cs.table}, {@code cs.position},
     * {@code cs.captured.ms}: the same as on Kafka Connect) and its W3C trace (a new one when the record has none):
     * the trace of an event starts at capture.
     */
    private List<org.apache.kafka.common.header.Header> headers(SourceRecord record) {
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>(fence.headers());
        boolean traced = false;
        for (Header header : record.headers()) {
            String name = header.key();
            if (header.value() != null && (name.startsWith(SMT_HEADER_PREFIX) || name.equals(TraceContext.HEADER))) {
                headers.add(new RecordHeader(name, header.value().toString().getBytes(StandardCharsets.UTF_8)));
                traced |= name.equals(TraceContext.HEADER);
            }
        }
        if (!traced) {
            headers.add(new RecordHeader(TraceContext.HEADER, TraceContext.newTrace().headerValue()));
        }
        return headers;
    }

    /** The lease fence: a run that lost its lease sends nothing more. */
    private void fenceBefore(List<RecordChangeEvent<SourceRecord>> records) {
        try {
            fence.check();
        } catch (CdcException e) {
            metrics.error("fenced");
            throw new CdcException.Retriable(e.getMessage() + " (" + records.size() + " records from "
                    + coordinates(records) + ")", null);
        }
    }

    /** Where a batch starts in the log: table and position of its first captured row. */
    private static String coordinates(List<RecordChangeEvent<SourceRecord>> records) {
        for (RecordChangeEvent<SourceRecord> event : records) {
            String table = header(event.record(), ChangeEventTransform.TABLE_HEADER);
            if (table != null) {
                return table + " at " + header(event.record(), ChangeEventTransform.POSITION_HEADER);
            }
        }
        return "control records only";
    }

    private void awaitAcks(List<Future<RecordMetadata>> acks, long start, List<RecordChangeEvent<SourceRecord>> records)
            throws InterruptedException {
        if (acks.isEmpty()) {
            return;
        }
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(ackTimeoutMs);
        try {
            for (Future<RecordMetadata> ack : acks) {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            metrics.error("produce");
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new CdcException.Retriable("a batch of " + acks.size() + " records from " + coordinates(records)
                    + " was not acked within " + ackTimeoutMs + " ms (kafka.ack.timeout.ms); nothing of it is marked "
                    + "processed", cause);
        }
        metrics.batchAcked(Duration.ofNanos(System.nanoTime() - start));
    }

    private void count(SourceRecord record) {
        RowOutcome outcome = outcome(record);
        if (outcome == null) {
            metrics.control();
            return;
        }
        metrics.event(header(record, ChangeEventTransform.TABLE_HEADER), outcome);
        if (outcome == RowOutcome.PRODUCED) {
            String captured = header(record, CAPTURED_HEADER);
            metrics.captured(record.timestamp() == null ? 0 : record.timestamp(),
                    captured == null || !CAPTURE_TIME.matcher(captured).matches() ? 0 : Long.parseLong(captured),
                    numericPosition(header(record, ChangeEventTransform.POSITION_HEADER)));
        }
    }

    private static RowOutcome outcome(SourceRecord record) {
        String tag = header(record, ChangeEventTransform.OUTCOME_HEADER);
        return tag == null ? null : RowOutcome.ofTag(tag);
    }

    private static String header(SourceRecord record, String name) {
        Header header = record.headers().lastWithName(name);
        return header == null || header.value() == null ? null : header.value().toString();
    }

    /** Postgres {@code X/Y} → the 64-bit LSN; binlog {@code file:pos:row} → pos; else 0. */
    static long numericPosition(String position) {
        if (position == null) {
            return 0;
        }
        try {
            int slash = position.indexOf('/');
            if (slash > 0) {
                return (Long.parseLong(position.substring(0, slash), 16) << 32)
                        | Long.parseLong(position.substring(slash + 1), 16);
            }
            String[] parts = position.split(":");
            return parts.length >= 2 ? Long.parseLong(parts[parts.length - 2]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
