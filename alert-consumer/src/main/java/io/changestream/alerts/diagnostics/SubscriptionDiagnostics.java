package io.changestream.alerts.diagnostics;

import io.changestream.alerts.destination.lineage.RunEvents;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.startpoint.StartingPoint;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.LedgerCodec;
import io.changestream.topics.serde.Serdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the platform's status endpoints answer about a subscription, computed from Kafka: {@link #diagnose} (log end,
 * the group's committed offsets, the subscription's starting point and its unprocessed events — a bounded sample of
 * the lag, counted exactly when the sample covers it and estimated otherwise), {@link #failedEvents} (the newest
 * records of {@code alert-dlq}), {@link #sentEvents} (the newest pair records of the group on {@code alert-ledger},
 * each read back from its source offset). Reads nothing it does not need and writes nothing. Any thread; reads are
 * serialized on one consumer (see {@link TopicReader}).
 */
public final class SubscriptionDiagnostics implements AutoCloseable {

    /**
     * A subscription's diagnostics: sums over the source partitions, and the per-partition figures.
     *
     * @param latestOffset            sum of the log ends
     * @param currentOffset           sum of the group's committed offsets (a partition it never committed: its log start)
     * @param startingOffset          sum of the subscription's first offsets
     * @param totalUnprocessed        events at or after both the committed offset and the starting point
     * @param relevantUnprocessed     of those, the ones its filter matches (exact when {@code sampled} = total)
     * @param sampled                 unprocessed events read to count {@code relevantUnprocessed}
     * @param relevantList            matched events of the sample, in offset order
     * @param totalList               every event of the sample, in offset order
     * @param partitions              per partition: topic, partition, logEnd, committed, starting
     * @param offsetsMicros           time spent reading the offsets and the group's commits, µs
     * @param scanMicros              time spent reading and matching the sample, µs
     */
    public record Diagnosis(long latestOffset, long currentOffset, long startingOffset, long totalUnprocessed,
                            long relevantUnprocessed, long sampled, List<ChangeEvent> relevantList,
                            List<ChangeEvent> totalList, List<PartitionFigures> partitions, long offsetsMicros,
                            long scanMicros) {

        /** Whether the count of relevant events is an estimate (the lag is longer than the sample read). */
        public boolean estimated() {
            return sampled < totalUnprocessed;
        }
    }

    /** One source partition's offsets. */
    public record PartitionFigures(String topic, int partition, long logEnd, long committed, long starting) {
    }

    /** Past {@code diagnostics.scanTime}, how long a read may go on to get one record of each lagging partition. */
    private static final Duration HARD_SCAN_LIMIT = Duration.ofSeconds(2);
    /** Bound of a list's read of its topic's tail. */
    private static final Duration LIST_READ_LIMIT = Duration.ofSeconds(10);

    private final TopicReader reader;
    private final DiagnosticsSettings settings;
    private final List<String> sourceTopics;
    private final String changesTopic;
    private final String ledgerTopic;
    private final String dlqTopic;
    private final String groupId;

    /**
     * @param kafka        client properties
     * @param sourceTopics the topics the group consumes ({@code changes}, {@code pipeline-status})
     * @param changesTopic the {@code changes} topic (the other source topics hold run statuses)
     */
    public SubscriptionDiagnostics(DiagnosticsSettings settings, Map<String, Object> kafka, List<String> sourceTopics,
                                   String changesTopic, String ledgerTopic, String dlqTopic, String groupId,
                                   Duration callTimeout) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.sourceTopics = List.copyOf(sourceTopics);
        this.changesTopic = changesTopic;
        this.ledgerTopic = ledgerTopic;
        this.dlqTopic = dlqTopic;
        this.groupId = groupId;
        this.reader = new TopicReader(kafka, groupId + "-diagnostics", callTimeout);
    }

    /** The settings. */
    public DiagnosticsSettings settings() {
        return settings;
    }

    /** The {@code alert-dlq} topic. */
    public String dlqTopic() {
        return dlqTopic;
    }

    /**
     * The DLQ depth: records held in {@code alert-dlq}, the sum over its partitions of log end minus log start (what
     * {@code dlq list} and the failed lists can still read; a replay does not remove a record, retention does). One
     * admin round trip (both offset lists at once); the partitions are remembered 30 s.
     */
    public long dlqDepth() {
        List<TopicPartition> partitions = reader.cachedPartitions(List.of(dlqTopic));
        TopicReader.Snapshot snapshot = reader.snapshot(partitions, null);
        long depth = 0;
        for (TopicPartition tp : partitions) {
            depth += Math.max(0, snapshot.ends().getOrDefault(tp, 0L) - snapshot.begins().getOrDefault(tp, 0L));
        }
        return depth;
    }

    /**
     * The subscription's diagnostics.
     *
     * @param point     its starting point, or null (it starts at the beginning)
     * @param listLimit how many events each list may hold (0: no lists)
     * @param skip      events of each list to skip first (paging)
     */
    public Diagnosis diagnose(ActiveSubscription subscription, StartingPoint point, int listLimit, int skip) {
        long began = System.nanoTime();
        long deadline = began + settings.scanTime().toNanos();
        List<TopicPartition> partitions = reader.cachedPartitions(sourceTopics);
        TopicReader.Snapshot snapshot = reader.snapshot(partitions, groupId);
        Map<TopicPartition, Long> ends = snapshot.ends();
        Map<TopicPartition, Long> begins = snapshot.begins();
        Map<TopicPartition, Long> committed = snapshot.committed();
        long offsetsDone = System.nanoTime();
        long latest = 0;
        long current = 0;
        long starting = 0;
        long total = 0;
        Map<TopicPartition, long[]> ranges = new LinkedHashMap<>();
        List<PartitionFigures> figures = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            long end = ends.get(tp);
            long begin = begins.get(tp);
            long done = Math.max(committed.getOrDefault(tp, begin), begin);
            long first = point == null ? 0 : point.firstOffset(tp.topic(), tp.partition());
            long from = Math.min(end, Math.max(done, first));
            latest += end;
            current += done;
            starting += first;
            total += end - from;
            ranges.put(tp, new long[]{from, end, 0});
            figures.add(new PartitionFigures(tp.topic(), tp.partition(), end, done, first));
        }
        // the sample: the next events to process, shared out in proportion to each partition's unprocessed events
        long budget = settings.sampleRecords();
        for (long[] r : ranges.values()) {
            long unprocessed = r[1] - r[0];
            r[2] = total == 0 ? 0 : Math.max(unprocessed > 0 ? 1 : 0,
                    Math.min(unprocessed, (long) Math.ceil((double) budget * unprocessed / total)));
        }
        Map<TopicPartition, long[]> counts = new HashMap<>(); // read, matched
        List<Sampled> sample = new ArrayList<>();
        reader.read(ranges, deadline, deadline + HARD_SCAN_LIMIT.toNanos(), record -> {
            TopicPartition tp = new TopicPartition(record.topic(), record.partition());
            long[] c = counts.computeIfAbsent(tp, k -> new long[2]);
            c[0]++;
            ChangeEvent event = event(record);
            boolean matched = event != null && matches(subscription, event);
            if (matched) {
                c[1]++;
            }
            if (event != null) {
                sample.add(new Sampled(tp, record.offset(), event, matched));
            }
            return true;
        });
        long scanDone = System.nanoTime();
        long relevant = 0;
        long sampled = 0;
        for (Map.Entry<TopicPartition, long[]> e : ranges.entrySet()) {
            long unprocessed = e.getValue()[1] - e.getValue()[0];
            long[] c = counts.getOrDefault(e.getKey(), new long[2]);
            sampled += c[0];
            relevant += c[0] >= unprocessed ? c[1] : c[0] == 0 ? 0 : Math.round((double) c[1] * unprocessed / c[0]);
        }
        sample.sort(Comparator.comparing((Sampled s) -> s.tp.topic()).thenComparingInt(s -> s.tp.partition())
                .thenComparingLong(s -> s.offset));
        List<ChangeEvent> all = sample.stream().map(Sampled::event).toList();
        List<ChangeEvent> matched = sample.stream().filter(Sampled::matched).map(Sampled::event).toList();
        return new Diagnosis(latest, current, starting, total, relevant, sampled, page(matched, listLimit, skip),
                page(all, listLimit, skip), figures, (offsetsDone - began) / 1_000,
                (scanDone - offsetsDone) / 1_000);
    }

    private record Sampled(TopicPartition tp, long offset, ChangeEvent event, boolean matched) {
    }

    private static boolean matches(ActiveSubscription subscription, ChangeEvent event) {
        try {
            return subscription.matches(event);
        } catch (RuntimeException e) { // a filter that fails on it: not counted as relevant (it is dead-lettered)
            return false;
        }
    }

    /** The event of a source record as the filters see it, or null when it is not one. */
    private ChangeEvent event(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        String json = new String(record.value(), StandardCharsets.UTF_8);
        try {
            return record.topic().equals(changesTopic) ? Serdes.changeEvent().fromJson(json)
                    : RunEvents.filterable(Serdes.pipelineRunStatus().fromJson(json));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Failed events on {@code alert-dlq}, newest first, of one subscription (null: of all) and one side (null: both),
     * among its newest {@code diagnostics.listRecords} records.
     */
    public List<FailedEvent> failedEvents(String subscriptionId, FailureSource source, int limit, int skip) {
        String prefix = subscriptionId == null ? null : subscriptionId + io.changestream.topics.model.TopicKeys.SEPARATOR;
        List<FailedEvent> found = new ArrayList<>();
        tail(dlqTopic, record -> {
            if (record.value() == null || (prefix != null && (record.key() == null
                    || !new String(record.key(), StandardCharsets.UTF_8).startsWith(prefix)))) {
                return;
            }
            try {
                FailedEvent failed = Serdes.failedEvent().fromJson(new String(record.value(), StandardCharsets.UTF_8));
                if ((subscriptionId == null || failed.subscriptionId().equals(subscriptionId))
                        && (source == null || failed.source() == source)) {
                    found.add(failed);
                }
            } catch (RuntimeException e) {
                // not a FailedEvent: not listed
            }
        });
        found.sort(Comparator.comparingLong(FailedEvent::timestamp).reversed());
        return page(found, limit, skip);
    }

    /** How many unique events of the subscription are on {@code alert-dlq} among its newest records. */
    public long failedCount(String subscriptionId) {
        return failedEvents(subscriptionId, null, Integer.MAX_VALUE, 0).stream()
                .map(f -> f.changeEvent().id()).distinct().count();
    }

    /**
     * The change events this group delivered to the subscription, newest delivery first, among the newest
     * {@code diagnostics.listRecords} records of {@code alert-ledger}; each read back from its source offset (an event
     * no longer on its source topic is left out).
     */
    public List<ChangeEvent> sentEvents(String subscriptionId, int limit, int skip) {
        Map<String, DeliveryRecord> newest = new HashMap<>();
        tail(ledgerTopic, record -> {
            if (record.value() == null) {
                return;
            }
            List<DeliveryRecord> records;
            try {
                records = LedgerCodec.decode(record.topic(), record.value()).records();
            } catch (RuntimeException e) {
                return; // unreadable: the ledger counts those
            }
            for (DeliveryRecord r : records) {
                if (r.groupId().equals(groupId) && r.subscriptionId().equals(subscriptionId)
                        && r.destinationId() == null && DeliveryRecord.DELIVERED.equals(r.status())
                        && r.sourceTopic() != null) {
                    newest.merge(r.eventId(), r, (a, b) -> a.deliveredAt() >= b.deliveredAt() ? a : b);
                }
            }
        });
        List<DeliveryRecord> sorted = new ArrayList<>(newest.values());
        sorted.sort(Comparator.comparingLong(DeliveryRecord::deliveredAt).reversed()
                .thenComparing(DeliveryRecord::eventId));
        List<ChangeEvent> out = new ArrayList<>();
        long deadline = System.nanoTime() + LIST_READ_LIMIT.toNanos();
        for (DeliveryRecord r : page(sorted, limit, skip)) {
            ConsumerRecord<byte[], byte[]> source = reader.at(new TopicPartition(r.sourceTopic(), r.sourcePartition()),
                    r.sourceOffset(), deadline);
            ChangeEvent event = source == null ? null : event(source);
            if (event != null) {
                out.add(event);
            }
        }
        return out;
    }

    /** Reads the newest {@code diagnostics.listRecords} records of a topic (shared out over its partitions). */
    private void tail(String topic, java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        List<TopicPartition> partitions = reader.cachedPartitions(List.of(topic));
        TopicReader.Snapshot snapshot = reader.snapshot(partitions, null);
        Map<TopicPartition, Long> ends = snapshot.ends();
        Map<TopicPartition, Long> begins = snapshot.begins();
        long per = Math.max(1, settings.listRecords() / Math.max(1, partitions.size()));
        Map<TopicPartition, long[]> ranges = new HashMap<>();
        for (TopicPartition tp : partitions) {
            long end = ends.get(tp);
            long from = Math.max(begins.get(tp), end - per);
            ranges.put(tp, new long[]{from, end, end - from});
        }
        long deadline = System.nanoTime() + LIST_READ_LIMIT.toNanos();
        reader.read(ranges, deadline, deadline, record -> {
            sink.accept(record);
            return true;
        });
    }

    private static <T> List<T> page(List<T> items, int limit, int skip) {
        if (limit <= 0 || skip >= items.size()) {
            return List.of();
        }
        return List.copyOf(items.subList(skip, (int) Math.min(items.size(), (long) skip + limit)));
    }

    @Override
    public void close() {
        reader.close();
    }
}
