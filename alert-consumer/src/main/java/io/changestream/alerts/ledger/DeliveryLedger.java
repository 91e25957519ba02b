package io.changestream.alerts.ledger;

import io.changestream.runtime.Backoff;
import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.runtime.PartitionListener;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.serde.LedgerCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
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
 * The once-per-group delivery ledger, keyed by (group, subscription, event id) — never by offset. Processor threads
 * call {@link #record} when a pair is settled (delivered or dead-lettered) and {@link #recordGroup} for the progress
 * of one destination group; each call returns when the broker acked the batch holding it, and the pair is then in
 * this instance's window at once, so a repeat of the event at any later offset is recognised. Before delivering,
 * processors call {@link #known}. Writes are group-committed per source partition (decision 2201): one
 * {@link LedgerCodec} batch carries every pair of that partition settled while the previous batch was on its way,
 * so a busy partition pays one record, one ack and one continuation for many pairs and an idle one sends at once.
 *
 * <p>The runtime's consumer thread calls {@link #onAssigned}/{@link #onReleased}. Assignment starts one rebuild per
 * partition on a pool of {@link LedgerSettings#rebuildThreads()} (each with its own reader), all with one deadline
 * ({@link LedgerSettings#rebuildTimeout()} from the assignment): the rebuild reads the ledger partition of the source
 * partition from the first record of the {@link LedgerSettings#dedupeHorizon()} (by time), at most the newest
 * {@link LedgerSettings#rebuildMaxRecords()}, and keeps this group's records of that source partition — what any
 * instance of the group settled. A reset marker ({@link LedgerRecords}) drops what was read before it. A rebuild that
 * fails is retried (with backoff) while the partition is owned, never replaced by a scan from the beginning; until it
 * is ready, {@link #known} waits up to the deadline and then throws {@link LedgerException} so the event is retried
 * later instead of being delivered without dedupe. Windows are bounded together by
 * {@link LedgerSettings#windowMaxBytes()} (when over it, the windows above their even share lose their oldest pairs)
 * and trimmed to the horizon as time passes.
 *
 * <p>Meters: {@code changestream_alert_ledger_writes_total{status}}, {@code changestream_alert_ledger_write_seconds},
 * {@code changestream_alert_ledger_batch_pairs},
 * {@code changestream_alert_ledger_hits_total}, {@code changestream_alert_ledger_rebuilds_total{result}},
 * {@code changestream_alert_ledger_rebuild_seconds}, {@code changestream_alert_ledger_rebuild_records_total},
 * {@code changestream_alert_ledger_window_pairs}, {@code changestream_alert_ledger_window_bytes},
 * {@code changestream_alert_ledger_window_evictions_total{reason}},
 * {@code changestream_alert_ledger_unreadable_records_total}.
 */
public final class DeliveryLedger implements PartitionListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryLedger.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final long MAX_RETRY_DELAY_MILLIS = 5_000;
    /** Between failed rebuild attempts of one window: 400 ms doubling, capped. */
    private static final Backoff REBUILD_BACKOFF = Backoff.doubling(Duration.ofMillis(400),
            Duration.ofMillis(MAX_RETRY_DELAY_MILLIS));

    private final LedgerSettings settings;
    private final Producer<String, byte[]> producer;
    private final Map<String, Object> readerProps;
    private final Clock clock;
    /** This instance's name in the batches it writes (the status view skips its own when it reads them back). */
    private final String writer;
    private final AtomicLong batchSequence = new AtomicLong();
    private final Map<TopicPartition, LedgerWindow> windows = new ConcurrentHashMap<>();
    private final Map<TopicPartition, GroupCommit> commits = new ConcurrentHashMap<>();
    private final List<Consumer<List<DeliveryRecord>>> ackListeners = new CopyOnWriteArrayList<>();
    private final Map<String, Counter> writes = new ConcurrentHashMap<>();
    private final ExecutorService rebuilder;
    private final Timer writeTimer;
    private final DistributionSummary batchPairs;
    private final Timer rebuildTimer;
    private final Counter hits;
    private final Counter rebuildRecords;
    private final Counter unreadable;
    private final AtomicLong windowBytes = new AtomicLong();
    private final AtomicLong evictedByHorizon = new AtomicLong();
    private final AtomicLong evictedByBudget = new AtomicLong();
    private final MeterRegistry meters;
    private volatile int ledgerPartitions;

    /**
     * @param producer    producer of the ledger's batches (acks=all, idempotent: a partition's batches stay in
     *                    order); owned by the caller
     * @param readerKafka client properties of the rebuild consumers ({@code bootstrap.servers}, security); no group
     */
    public DeliveryLedger(LedgerSettings settings, Producer<String, byte[]> producer, Map<String, Object> readerKafka,
                          MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.writer = settings.groupId() + "/" + UUID.randomUUID();
        this.clock = clock;
        this.meters = meters;
        this.readerProps = new HashMap<>(readerKafka);
        readerProps.remove(ConsumerConfig.GROUP_ID_CONFIG);
        readerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        readerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        readerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        AtomicInteger threads = new AtomicInteger();
        this.rebuilder = Executors.newFixedThreadPool(settings.rebuildThreads(), r -> {
            Thread t = new Thread(r, "cs-ledger-rebuild-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.writeTimer = AlertMeter.LEDGER_WRITE.timer().register(meters);
        this.batchPairs = AlertMeter.LEDGER_BATCH_PAIRS.summary().register(meters);
        this.rebuildTimer = AlertMeter.LEDGER_REBUILD.timer().register(meters);
        this.hits = AlertMeter.LEDGER_HITS.counter().register(meters);
        this.rebuildRecords = AlertMeter.LEDGER_REBUILD_RECORDS.counter().register(meters);
        this.unreadable = AlertMeter.LEDGER_UNREADABLE_RECORDS.counter()
                .register(meters);
        AlertMeter.LEDGER_WINDOW_PAIRS.gauge(windows,
                        w -> w.values().stream().mapToInt(LedgerWindow::size).sum()).register(meters);
        AlertMeter.LEDGER_WINDOW_BYTES.gauge(windowBytes, AtomicLong::get).baseUnit("bytes")
                .register(meters);
        AlertMeter.LEDGER_WINDOW_EVICTIONS.functionCounter(evictedByHorizon, AtomicLong::get)
                .tag("reason", "horizon")
                .register(meters);
        AlertMeter.LEDGER_WINDOW_EVICTIONS.functionCounter(evictedByBudget, AtomicLong::get)
                .tag("reason", "budget")
                .register(meters);
    }

    /** One window as {@code /api/v1/runtime/status} shows it. */
    public record WindowStatus(String topic, int partition, long scannedRecords, int settledPairs, long bytes,
                               long spanSeconds, long rebuildMillis, String result) {
    }

    /** What the group knows of a (subscription, event) pair. */
    public record Known(Optional<String> status, java.util.Set<String> deliveredGroups,
                        java.util.Set<String> attemptedGroups) {
    }

    /**
     * Records a settled pair, waits for the ack of its batch, then it is in the window.
     *
     * @param status one of {@link DeliveryRecord#DELIVERED}, {@link DeliveryRecord#DEAD_LETTERED}
     * @throws LedgerException when the broker did not ack within {@link LedgerSettings#ackTimeout()}
     */
    public void record(TopicPartition source, long sourceOffset, String subscriptionId, String eventId,
                       String status, int attempts) {
        await(write(source, pair(source, sourceOffset, subscriptionId, eventId, status, attempts)));
    }

    /**
     * {@link #record} without waiting: the stage completes when the batch holding the pair was acked and the pair
     * added to the window (on a continuation thread, never the producer's), or fails with a {@link LedgerException}
     * (not acked within {@link LedgerSettings#ackTimeout()}).
     */
    public CompletableFuture<Void> recordAsync(TopicPartition source, long sourceOffset, String subscriptionId,
                                               String eventId, String status, int attempts) {
        return write(source, pair(source, sourceOffset, subscriptionId, eventId, status, attempts));
    }

    /**
     * Records the progress of one destination group of a pair: {@link DeliveryRecord#DELIVERED} once it got the
     * event, {@link LedgerRecords#ATTEMPTING} before an at-most-once send. Waits for the ack.
     *
     * @throws LedgerException when the broker did not ack within {@link LedgerSettings#ackTimeout()}
     */
    public void recordGroup(TopicPartition source, long sourceOffset, String subscriptionId, String eventId,
                            String groupKey, String status) {
        await(write(source, group(source, sourceOffset, subscriptionId, eventId, groupKey, status)));
    }

    /** {@link #recordGroup} without waiting, like {@link #recordAsync}. */
    public CompletableFuture<Void> recordGroupAsync(TopicPartition source, long sourceOffset, String subscriptionId,
                                                    String eventId, String groupKey, String status) {
        return write(source, group(source, sourceOffset, subscriptionId, eventId, groupKey, status));
    }

    /** This instance's writer name, carried by every batch it writes. */
    public String writer() {
        return writer;
    }

    /**
     * Calls {@code listener} with the records of each batch this instance wrote, once acked and before the writes
     * complete (a continuation thread): the status view counts its own instance's writes from here, without reading
     * them back.
     */
    public void onAcked(Consumer<List<DeliveryRecord>> listener) {
        ackListeners.add(listener);
    }

    /** The record of a settled pair. */
    private DeliveryRecord pair(TopicPartition source, long sourceOffset, String subscriptionId, String eventId,
                                String status, int attempts) {
        return new DeliveryRecord(settings.groupId(), subscriptionId, eventId, null, status, attempts, clock.millis(),
                source.topic(), source.partition(), sourceOffset);
    }

    /** The record of one destination group's progress in a pair. */
    private DeliveryRecord group(TopicPartition source, long sourceOffset, String subscriptionId, String eventId,
                                 String groupKey, String status) {
        return new DeliveryRecord(settings.groupId(), subscriptionId, eventId, groupKey, status, 0, clock.millis(),
                source.topic(), source.partition(), sourceOffset);
    }

    private static void await(CompletableFuture<Void> written) {
        try {
            written.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof LedgerException l ? l : new LedgerException(String.valueOf(e.getCause()),
                    e.getCause());
        }
    }

    private CompletableFuture<Void> write(TopicPartition source, DeliveryRecord value) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        commits.computeIfAbsent(source, GroupCommit::new).add(value, done);
        return done;
    }

    /** One batch on its way: its value, its pairs and who waits for them. */
    private record Batch(byte[] value, List<DeliveryRecord> records, List<CompletableFuture<Void>> waiters,
                         long[] startedNanos) {
    }

    /**
     * Group commit of one source partition (decision 2201): pairs settled while the partition's previous batch is on
     * its way collect in the open batch, which goes out when that one is acked (or as soon as it reaches
     * {@link LedgerSettings#batchMaxBytes()}, queued behind it). So an idle partition's pair is sent at once, a busy
     * one's many pairs share one record, one ack and one continuation, and the partition's batches reach the
     * ledger in the order they were settled, one at a time.
     */
    private final class GroupCommit {
        private final TopicPartition source;
        private final LedgerCodec.Encoder encoder;
        private final java.util.ArrayDeque<Batch> sealed = new java.util.ArrayDeque<>();
        private List<DeliveryRecord> records = new ArrayList<>();
        private List<CompletableFuture<Void>> waiters = new ArrayList<>();
        private long[] started = new long[16];
        private boolean inFlight;

        GroupCommit(TopicPartition source) {
            this.source = source;
            this.encoder = new LedgerCodec.Encoder(settings.groupId(), source.topic(), source.partition(), writer);
        }

        void add(DeliveryRecord r, CompletableFuture<Void> done) {
            Batch next;
            synchronized (this) {
                if (started.length == records.size()) {
                    started = java.util.Arrays.copyOf(started, started.length * 2);
                }
                started[records.size()] = System.nanoTime();
                encoder.add(r);
                records.add(r);
                waiters.add(done);
                if (encoder.estimatedBytes() >= settings.batchMaxBytes()) {
                    seal();
                }
                if (inFlight) {
                    return;
                }
                if (sealed.isEmpty()) {
                    seal();
                }
                next = sealed.poll();
                inFlight = true;
            }
            send(next);
        }

        /** Closes the open batch (callers hold the lock). */
        private void seal() {
            sealed.add(new Batch(encoder.bytes(), records, waiters, started));
            encoder.reset();
            records = new ArrayList<>();
            waiters = new ArrayList<>();
            started = new long[16];
        }

        private void send(Batch batch) {
            String key = settings.groupId() + "|" + source + "|" + writer + "|" + batchSequence.incrementAndGet();
            CompletableFuture<?> acked;
            try {
                acked = ProducerAcks.sendWithin(producer, new ProducerRecord<>(settings.topic(),
                        ledgerPartition(source.partition()), key, batch.value()), settings.ackTimeout(),
                        cause -> new LedgerException("ledger batch " + key + " (" + batch.records().size()
                                + " pairs) not acked within " + settings.ackTimeout().toMillis()
                                + " ms (ledger.ackTimeout): " + cause, cause));
            } catch (RuntimeException e) { // the ledger's partitions unknown: this batch fails, the next one tries
                acked = CompletableFuture.failedFuture(new LedgerException("ledger batch " + key + " not sent: " + e,
                        e));
            }
            acked.whenComplete((metadata, error) -> {
                if (error == null) {
                    applyToWindow(batch);
                }
                Batch next;
                synchronized (this) {
                    if (sealed.isEmpty() && !records.isEmpty()) {
                        seal();
                    }
                    next = sealed.poll();
                    inFlight = next != null;
                }
                if (next != null) {
                    send(next); // before this batch's writers continue: the partition's next batch goes now
                }
                settle(batch, error);
            });
        }

        private void applyToWindow(Batch batch) {
            LedgerWindow window = windows.get(source);
            if (window != null) {
                for (DeliveryRecord r : batch.records()) {
                    window.apply(r, true, budget(), horizonStart());
                }
            }
        }

        /** Completes the writes of a batch (acked and in the window), or fails them. */
        private void settle(Batch batch, Throwable error) {
            List<DeliveryRecord> records = batch.records();
            if (error != null) {
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause()
                        != null ? error.getCause() : error;
                batch.waiters().forEach(w -> w.completeExceptionally(cause));
                return;
            }
            long now = System.nanoTime();
            batchPairs.record(records.size());
            for (int i = 0; i < records.size(); i++) {
                DeliveryRecord r = records.get(i);
                writeTimer.record(now - batch.startedNanos()[i], TimeUnit.NANOSECONDS);
                writes.computeIfAbsent(r.status(), s -> AlertMeter.LEDGER_WRITES.counter().tag("status", s)
                        .register(meters)).increment();
            }
            for (Consumer<List<DeliveryRecord>> listener : ackListeners) {
                try {
                    listener.accept(records);
                } catch (RuntimeException e) {
                    LOG.warn("a ledger ack listener failed: {}", e.toString());
                }
            }
            batch.waiters().forEach(w -> w.complete(null));
        }
    }

    /**
     * {@link #known} without waiting for a window being rebuilt: completes at once when the window is ready (or the
     * partition not owned), else when its rebuild ends, failing with a {@link LedgerException} at the deadline.
     */
    public CompletableFuture<Known> knownAsync(TopicPartition source, String subscriptionId, String eventId) {
        LedgerWindow window = windows.get(source);
        if (window == null || window.ready.isDone()) {
            try {
                return CompletableFuture.completedFuture(known(source, subscriptionId, eventId));
            } catch (LedgerException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        long wait = Math.max(1, window.deadline - clock.millis());
        return window.ready.copy().orTimeout(wait, TimeUnit.MILLISECONDS).handle((ok, error) -> {
            if (error != null) {
                throw new LedgerException("ledger window of " + source + " not rebuilt by its deadline "
                        + "(ledger.rebuildTimeout " + settings.rebuildTimeout() + "): the event is held and retried",
                        error);
            }
            return known(source, subscriptionId, eventId);
        });
    }

    /**
     * What this group settled for the pair, as far as the source partition's window knows (empty when the partition
     * is not owned). Waits while the window is being rebuilt, at most until the assignment's deadline. Processor
     * threads.
     *
     * @throws LedgerException when the window is still not rebuilt at the deadline (the event is retried later)
     */
    public Known known(TopicPartition source, String subscriptionId, String eventId) {
        LedgerWindow window = windows.get(source);
        if (window == null) {
            return new Known(Optional.empty(), java.util.Set.of(), java.util.Set.of());
        }
        if (!window.ready.isDone()) {
            long wait = Math.max(1, window.deadline - clock.millis());
            try {
                window.ready.get(wait, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LedgerException("interrupted while waiting for the ledger window of " + source, e);
            } catch (ExecutionException | TimeoutException e) {
                throw new LedgerException("ledger window of " + source + " not rebuilt by its deadline "
                        + "(ledger.rebuildTimeout " + settings.rebuildTimeout() + "): the event is held and retried",
                        e);
            }
        }
        LedgerWindow.Known k = window.lookup(subscriptionId, eventId, budget(), horizonStart());
        if (k == null) {
            return new Known(Optional.empty(), java.util.Set.of(), java.util.Set.of());
        }
        if (k.status() != null) {
            hits.increment();
        }
        return new Known(Optional.ofNullable(k.status()), k.deliveredGroups(), k.attemptedGroups());
    }

    /** The status this group recorded for the pair, if known; see {@link #known}. */
    public Optional<String> settled(TopicPartition source, String subscriptionId, String eventId) {
        return known(source, subscriptionId, eventId).status();
    }

    /** The windows of the owned partitions, by topic and partition. */
    public List<WindowStatus> windows() {
        List<WindowStatus> out = new ArrayList<>();
        windows.values().forEach(w -> out.add(w.status(clock::millis)));
        out.sort(Comparator.comparing(WindowStatus::topic).thenComparingInt(WindowStatus::partition));
        return out;
    }

    /** Whether the window of an owned partition is rebuilt (complete or truncated to the newest records). */
    public boolean ready(TopicPartition source) {
        LedgerWindow w = windows.get(source);
        return w != null && w.ready.isDone() && !w.released;
    }

    @Override
    public void onAssigned(Map<TopicPartition, Long> committedOffsets) {
        long deadline = clock.millis() + settings.rebuildTimeout().toMillis();
        committedOffsets.keySet().forEach(tp -> {
            LedgerWindow window = new LedgerWindow(tp, deadline, windowBytes, settings.windowMaxBytes(),
                    evictedByHorizon, evictedByBudget);
            LedgerWindow previous = windows.put(tp, window);
            if (previous != null) {
                previous.released = true;
                previous.clear();
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
                window.clear();
            }
        }
    }

    private long budget() {
        return settings.windowMaxBytes() / Math.max(1, windows.size());
    }

    private long horizonStart() {
        return clock.millis() - settings.dedupeHorizon().toMillis();
    }

    private int ledgerPartition(int sourcePartition) {
        int count = ledgerPartitions;
        if (count == 0) {
            count = producer.partitionsFor(settings.topic()).size();
            ledgerPartitions = count;
        }
        return LedgerRecords.ledgerPartition(sourcePartition, count);
    }

    /** A rebuild thread: retries until the window is rebuilt or the partition released. */
    private void rebuild(LedgerWindow window) {
        long started = System.nanoTime();
        String result = "released";
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(readerProps, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            for (int attempt = 1; !window.released; attempt++) {
                try {
                    result = scan(consumer, window);
                    break;
                } catch (RuntimeException e) {
                    long delay = REBUILD_BACKOFF.after(attempt).toMillis();
                    LOG.warn("ledger window of {}: rebuild attempt {} failed, retrying in {} ms (the partition's "
                            + "events wait): {}", window.source, attempt, delay, e.toString());
                    count("failed");
                    window.reset();
                    Thread.sleep(delay);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = "released";
        } catch (RuntimeException e) {
            LOG.warn("ledger window of {}: no reader could be created: {}", window.source, e.toString());
            result = "failed";
        } finally {
            long nanos = System.nanoTime() - started;
            rebuildTimer.record(nanos, TimeUnit.NANOSECONDS);
            window.rebuildMillis = TimeUnit.NANOSECONDS.toMillis(nanos);
            window.result = result;
            count(result);
            if (window.scanned == 0 && "empty".equals(result)) { // nothing to say at every first start (issue 23)
                LOG.debug("ledger window of {}: empty, {} ms", window.source, window.rebuildMillis);
            } else {
                LOG.info("ledger window of {}: {} records read, {} pairs kept, {} ms ({})", window.source,
                        window.scanned, window.size(), window.rebuildMillis, result);
            }
            if (!"failed".equals(result)) {
                window.ready.complete(null);
            }
        }
    }

    private void count(String result) {
        AlertMeter.LEDGER_REBUILDS.counter()
                .tag("result", result).register(meters).increment();
    }

    /** Reads the horizon's newest records of the ledger partition into the window; returns the result. */
    private String scan(KafkaConsumer<byte[], byte[]> consumer, LedgerWindow window) {
        Duration timeout = settings.rebuildTimeout();
        int count = consumer.partitionsFor(settings.topic(), timeout).size();
        if (count != ledgerPartitions && ledgerPartitions != 0) {
            LOG.info("ledger topic {} has {} partitions now (was {})", settings.topic(), count, ledgerPartitions);
        }
        ledgerPartitions = count;
        TopicPartition source = window.source;
        if (source.partition() >= count) {
            LOG.warn("ledger topic {} has {} partitions, fewer than {} needs: its records share ledger partitions "
                    + "by modulus, which moves when ledger partitions are added; raise the ledger's partitions to "
                    + "those of the source topic (topics apply)", settings.topic(), count, source);
        }
        TopicPartition ledger = new TopicPartition(settings.topic(), LedgerRecords.ledgerPartition(
                source.partition(), count));
        long horizonStart = horizonStart();
        OffsetAndTimestamp first = consumer.offsetsForTimes(Map.of(ledger, horizonStart), timeout).get(ledger);
        long end = consumer.endOffsets(List.of(ledger), timeout).get(ledger);
        if (first == null || first.offset() >= end) {
            return "empty";
        }
        long from = first.offset();
        String result = "complete";
        if (end - from > settings.rebuildMaxRecords()) {
            from = end - settings.rebuildMaxRecords();
            result = "truncated";
            LOG.warn("ledger window of {}: the horizon holds {} records, more than ledger.rebuildMaxRecords {}; "
                    + "reading the newest only", source, end - first.offset(), settings.rebuildMaxRecords());
        }
        consumer.assign(List.of(ledger));
        consumer.seek(ledger, from);
        long scanned = 0;
        while (consumer.position(ledger) < end && !window.released) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (r.offset() >= end) {
                    break;
                }
                scanned++;
                keep(window, r, horizonStart);
            }
            window.scanned = scanned;
        }
        rebuildRecords.increment(scanned);
        return window.released ? "released" : result;
    }

    private void keep(LedgerWindow window, ConsumerRecord<byte[], byte[]> r, long horizonStart) {
        if (r.value() == null) {
            return;
        }
        List<DeliveryRecord> records;
        try {
            records = LedgerCodec.decode(r.topic(), r.value()).records();
        } catch (RuntimeException e) {
            unreadable.increment();
            LOG.warn("unreadable ledger record at {}-{}@{} skipped: {}", r.topic(), r.partition(), r.offset(),
                    e.getMessage());
            return;
        }
        for (DeliveryRecord record : records) {
            if (!settings.groupId().equals(record.groupId()) || !window.source.topic().equals(record.sourceTopic())
                    || record.sourcePartition() != window.source.partition()) {
                return; // a batch is of one group and source partition
            }
            if (LedgerRecords.isReset(record)) {
                window.reset();
            } else {
                window.apply(record, false, budget(), horizonStart);
            }
        }
    }

    /** Stops the rebuild threads (bounded by the rebuild timeout); idempotent. */
    @Override
    public void close() {
        if (rebuilder.isShutdown()) {
            return;
        }
        windows.values().forEach(w -> w.released = true);
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
