package io.changestream.alerts.ledger;

import io.changestream.runtime.PartitionListener;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.serde.JsonSerde;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The once-per-group delivery ledger. Processor threads call {@link #record} after a (subscription, event) pair is
 * settled (delivered or dead-lettered): the {@link DeliveryRecord} goes to the ledger partition with the number of
 * the source event's partition and the call returns only when the broker acked it, so the event may be marked done.
 * Before delivering, processors call {@link #settled}, which answers from the window of the source partition.
 *
 * <p>The runtime's consumer thread calls {@link #onAssigned}/{@link #onReleased}. Assignment starts a rebuild on the
 * ledger's own thread (with its own consumer): only offsets from the committed one on can be handed out again, so it
 * reads the committed source record's timestamp, seeks the ledger partition to that time minus
 * {@link LedgerSettings#rebuildClockSkew()} and keeps this group's records with a source offset at or after the
 * committed one. When nothing was left uncommitted (committed = log end) the window is empty without reading. Every
 * rebuild is bounded ({@code rebuildMaxRecords}, {@code rebuildTimeout}) and measured (meters below,
 * {@link #windows()}); a partial window is safe: the receiver's Idempotency-Key covers what it misses.
 *
 * <p>Meters: {@code changestream_alert_ledger_writes_total{status}}, {@code changestream_alert_ledger_write_seconds},
 * {@code changestream_alert_ledger_hits_total}, {@code changestream_alert_ledger_rebuilds_total{result}},
 * {@code changestream_alert_ledger_rebuild_seconds}, {@code changestream_alert_ledger_rebuild_records_total},
 * {@code changestream_alert_ledger_window_pairs}.
 */
public final class DeliveryLedger implements PartitionListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryLedger.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final LedgerSettings settings;
    private final Producer<String, String> producer;
    private final Map<String, Object> readerProps;
    private final Clock clock;
    private final JsonSerde<DeliveryRecord> serde = Serdes.deliveryRecord();
    private final Map<TopicPartition, LedgerWindow> windows = new ConcurrentHashMap<>();
    private final Map<String, Counter> writes = new ConcurrentHashMap<>();
    private final ExecutorService rebuilder;
    private final Timer writeTimer;
    private final Timer rebuildTimer;
    private final Counter hits;
    private final Counter rebuildRecords;
    private final MeterRegistry meters;
    private KafkaConsumer<byte[], byte[]> reader;
    private volatile int ledgerPartitions;

    /**
     * @param producer    producer of ledger records (acks=all advised); owned by the caller
     * @param readerKafka client properties of the rebuild consumer ({@code bootstrap.servers}, security); no group
     */
    public DeliveryLedger(LedgerSettings settings, Producer<String, String> producer, Map<String, Object> readerKafka,
                          MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.clock = clock;
        this.meters = meters;
        this.readerProps = new HashMap<>(readerKafka);
        readerProps.remove(ConsumerConfig.GROUP_ID_CONFIG);
        readerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        readerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        readerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        this.rebuilder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cs-ledger-rebuild");
            t.setDaemon(true);
            return t;
        });
        this.writeTimer = Timer.builder("changestream.alert.ledger.write")
                .description("Time from sending a ledger record until the broker acked it").register(meters);
        this.rebuildTimer = Timer.builder("changestream.alert.ledger.rebuild")
                .description("Duration of one partition's ledger window rebuild").register(meters);
        this.hits = Counter.builder("changestream.alert.ledger.hits")
                .description("Deliveries skipped because the ledger already held the pair").register(meters);
        this.rebuildRecords = Counter.builder("changestream.alert.ledger.rebuild.records")
                .description("Ledger records read by window rebuilds").register(meters);
        Gauge.builder("changestream.alert.ledger.window.pairs", windows,
                        w -> w.values().stream().mapToInt(x -> x.settled.size()).sum())
                .description("Settled pairs held in the ledger windows of the owned partitions").register(meters);
    }

    /** One window as {@code /api/v1/runtime/status} shows it. */
    public record WindowStatus(String topic, int partition, long committedOffset, long scannedRecords,
                               int settledPairs, long rebuildMillis, String result) {
    }

    /**
     * Records a settled pair and waits for the ack.
     *
     * @param status one of {@link DeliveryRecord#DELIVERED}, {@link DeliveryRecord#DEAD_LETTERED}
     * @throws LedgerException when the broker did not ack within {@link LedgerSettings#ackTimeout()}
     */
    public void record(TopicPartition source, long sourceOffset, String subscriptionId, String eventId,
                       String status, int attempts) {
        DeliveryRecord value = new DeliveryRecord(settings.groupId(), subscriptionId, eventId, null, status, attempts,
                clock.millis(), source.topic(), source.partition(), sourceOffset);
        long started = System.nanoTime();
        try {
            producer.send(new ProducerRecord<>(settings.topic(), ledgerPartition(source.partition()), value.key(),
                    serde.toJson(value))).get(settings.ackTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerException("interrupted while writing the ledger record " + value.key(), e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new LedgerException("ledger record " + value.key() + " not acked within "
                    + settings.ackTimeout().toMillis() + " ms (ledger.ackTimeout): " + e, e);
        }
        writeTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        writes.computeIfAbsent(status, s -> Counter.builder("changestream.alert.ledger.writes")
                .description("Ledger records acked, by status").tag("status", s).register(meters)).increment();
    }

    /**
     * The status this group recorded for the pair, if its source partition's window holds it. Waits (at most
     * {@link LedgerSettings#rebuildTimeout()}) while the window is being rebuilt. Processor threads.
     */
    public Optional<String> settled(TopicPartition source, String subscriptionId, String eventId) {
        LedgerWindow window = windows.get(source);
        if (window == null) {
            return Optional.empty();
        }
        if (!window.ready.isDone()) {
            try {
                window.ready.get(settings.rebuildTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LedgerException("interrupted while waiting for the ledger window of " + source, e);
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("ledger window of {} not ready within {} ms (ledger.rebuildTimeout): delivering on the "
                        + "Idempotency-Key alone", source, settings.rebuildTimeout().toMillis());
            }
        }
        String status = window.settled.get(LedgerWindow.key(subscriptionId, eventId));
        if (status != null) {
            hits.increment();
        }
        return Optional.ofNullable(status);
    }

    /** The windows of the owned partitions, by topic and partition. */
    public List<WindowStatus> windows() {
        List<WindowStatus> out = new ArrayList<>();
        windows.values().forEach(w -> out.add(w.status()));
        out.sort(Comparator.comparing(WindowStatus::topic).thenComparingInt(WindowStatus::partition));
        return out;
    }

    @Override
    public void onAssigned(Map<TopicPartition, Long> committedOffsets) {
        committedOffsets.forEach((tp, committed) -> {
            LedgerWindow window = new LedgerWindow(tp, committed);
            LedgerWindow previous = windows.put(tp, window);
            if (previous != null) {
                previous.released = true;
            }
            rebuilder.execute(() -> rebuild(window));
        });
    }

    @Override
    public void onReleased(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            LedgerWindow window = windows.remove(tp);
            if (window != null) {
                window.released = true;
                window.ready.complete(null);
            }
        }
    }

    private int ledgerPartition(int sourcePartition) {
        int count = ledgerPartitions;
        if (count == 0) {
            count = producer.partitionsFor(settings.topic()).size();
            ledgerPartitions = count;
        }
        return sourcePartition % count;
    }

    /** Rebuild thread only. */
    private void rebuild(LedgerWindow window) {
        long started = System.nanoTime();
        long deadline = clock.millis() + settings.rebuildTimeout().toMillis();
        String result = "partial";
        try {
            if (window.released) {
                result = "released";
                return;
            }
            KafkaConsumer<byte[], byte[]> consumer = reader();
            TopicPartition source = window.source;
            // without a committed offset the group reads from the log start (auto.offset.reset=earliest)
            long from = window.committed >= 0 ? window.committed
                    : consumer.beginningOffsets(List.of(source), settings.rebuildTimeout()).get(source);
            long end = consumer.endOffsets(List.of(source), settings.rebuildTimeout()).get(source);
            if (end <= from) {
                result = "empty";
                return;
            }
            long timestamp = timestampAt(consumer, source, from, deadline);
            long startTime = timestamp < 0 ? 0 : Math.max(0, timestamp - settings.rebuildClockSkew().toMillis());
            TopicPartition ledger = new TopicPartition(settings.topic(), ledgerPartition(source.partition()));
            OffsetAndTimestamp ledgerFrom = consumer.offsetsForTimes(Map.of(ledger, startTime),
                    settings.rebuildTimeout()).get(ledger);
            long ledgerEnd = consumer.endOffsets(List.of(ledger), settings.rebuildTimeout()).get(ledger);
            if (ledgerFrom == null || ledgerFrom.offset() >= ledgerEnd) {
                result = "empty";
                return;
            }
            consumer.assign(List.of(ledger));
            consumer.seek(ledger, ledgerFrom.offset());
            long scanned = 0;
            while (consumer.position(ledger) < ledgerEnd && !window.released) {
                if (scanned >= settings.rebuildMaxRecords() || clock.millis() >= deadline) {
                    LOG.warn("ledger window of {} left partial after {} records (ledger.rebuildMaxRecords {}, "
                            + "ledger.rebuildTimeout {})", source, scanned, settings.rebuildMaxRecords(),
                            settings.rebuildTimeout());
                    return;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                    if (r.offset() >= ledgerEnd) {
                        break;
                    }
                    scanned++;
                    keep(window, r);
                }
                window.scanned = scanned;
            }
            rebuildRecords.increment(scanned);
            result = window.released ? "released" : "complete";
        } catch (RuntimeException e) {
            LOG.warn("ledger window of {} could not be rebuilt; delivering on the Idempotency-Key alone: {}",
                    window.source, e.toString());
            result = "failed";
            resetReader();
        } finally {
            long nanos = System.nanoTime() - started;
            rebuildTimer.record(nanos, TimeUnit.NANOSECONDS);
            window.rebuildMillis = TimeUnit.NANOSECONDS.toMillis(nanos);
            window.result = result;
            Counter.builder("changestream.alert.ledger.rebuilds")
                    .description("Ledger window rebuilds, by result (complete, empty, partial, failed, released)")
                    .tag("result", result).register(meters).increment();
            LOG.info("ledger window of {}: committed {}, {} records read, {} pairs kept, {} ms ({})", window.source,
                    window.committed, window.scanned, window.settled.size(), window.rebuildMillis, result);
            window.ready.complete(null);
        }
    }

    private void keep(LedgerWindow window, ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return;
        }
        DeliveryRecord record;
        try {
            record = serde.fromJson(new String(r.value(), StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return;
        }
        if (settings.groupId().equals(record.groupId()) && window.source.topic().equals(record.sourceTopic())
                && record.sourcePartition() == window.source.partition()
                && record.sourceOffset() >= window.committed) {
            window.settled.put(LedgerWindow.key(record.subscriptionId(), record.eventId()), record.status());
        }
    }

    /** The timestamp of the first source record at or after {@code offset}, or -1 when none was read in time. */
    private long timestampAt(KafkaConsumer<byte[], byte[]> consumer, TopicPartition source, long offset,
                             long deadline) {
        consumer.assign(List.of(source));
        consumer.seek(source, offset);
        while (clock.millis() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (r.offset() >= offset) {
                    return r.timestamp();
                }
            }
        }
        return -1;
    }

    private KafkaConsumer<byte[], byte[]> reader() {
        if (reader == null) {
            reader = new KafkaConsumer<>(readerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
        return reader;
    }

    private void resetReader() {
        if (reader != null) {
            try {
                reader.close(Duration.ofSeconds(1));
            } catch (RuntimeException ignored) {
                // a new one is made on the next rebuild
            }
            reader = null;
        }
    }

    /** Stops the rebuild thread and its consumer (bounded by the rebuild timeout); idempotent. */
    @Override
    public void close() {
        if (rebuilder.isShutdown()) {
            return;
        }
        windows.values().forEach(w -> w.released = true);
        rebuilder.execute(this::resetReader); // the reader belongs to the rebuild thread: close it there
        rebuilder.shutdown();
        try {
            if (!rebuilder.awaitTermination(settings.rebuildTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                rebuilder.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
