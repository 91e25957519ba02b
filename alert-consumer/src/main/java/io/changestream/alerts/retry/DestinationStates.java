package io.changestream.alerts.retry;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.changestream.alerts.view.ViewReader;
import io.changestream.runtime.RetryLaterException;
import io.changestream.topics.serde.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group-wide, durable destination state on the compacted {@code alert-destinations} topic (decision 1120): whether a
 * destination is suspended (by a 410, a failure streak or duration, or by hand) and how far the retry path got with
 * it ({@code handedOff}/{@code drained} per {@code alert-retry} partition: the highest offset handed off / settled for
 * it there, issue 21 item 7). Every instance reads the whole topic with one {@link ViewReader} (no consumer group)
 * and applies its own writes at once, so all instances agree and the state survives restarts. Suspensions and
 * resumes are acked writes; progress is published every {@code retry.publishInterval} (newest value per destination).
 * At most {@code retry.maxDestinations} destinations are kept (a suspended one is never dropped; progress of others
 * is, which only makes this instance hand off a little longer). Thread-safe.
 */
final class DestinationStates implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DestinationStates.class);
    private static final String SUSPENSION = "suspension";
    private static final String PROGRESS = "progress";
    private static final String ATTEMPT = "attempt";

    /**
     * Offsets settled above a destination's drained progress per partition: the retry path starts nothing but the
     * first unsettled record of the destination while this many are known settled above it (with its running tries,
     * {@link DestinationQueue#claim}), so a progress record stays small.
     */
    static final int MAX_SETTLED_ABOVE = 256;
    /**
     * What a merge keeps at most (writers that raced past the claim bound): past it the highest offsets fall out and
     * are sent once more by a new owner, never lost.
     */
    static final int MAX_SETTLED_ABOVE_KEPT = 4 * MAX_SETTLED_ABOVE;

    /**
     * How far the retry path got with a destination on one {@code alert-retry} partition; {@code -1}: none.
     *
     * @param handedOff    the highest offset handed off for it there
     * @param drained      the highest offset settled for it there (per key order, every earlier one of it too)
     * @param settledAbove offsets above {@code drained} settled out of order (ascending, at most
     *                     {@value #MAX_SETTLED_ABOVE_KEPT}): a new owner skips them too, so records tried concurrently
     *                     are not sent again after a rebalance (decision 2104)
     */
    record Progress(long handedOff, long drained, List<Long> settledAbove) {
        static final Progress NONE = new Progress(-1, -1, List.of());

        Progress {
            settledAbove = List.copyOf(settledAbove);
        }

        /** Every fact of both: the highest offsets, and the settled offsets above the new drained progress. */
        Progress max(long in, long out, List<Long> above) {
            long d = Math.max(drained, out);
            java.util.TreeSet<Long> union = new java.util.TreeSet<>();
            for (List<Long> l : List.of(settledAbove, above)) {
                for (Long o : l) {
                    if (o > d) {
                        union.add(o);
                    }
                }
            }
            while (union.size() > MAX_SETTLED_ABOVE_KEPT) {
                union.pollLast(); // sent again by a new owner, with the same Idempotency-Key: never lost
            }
            return new Progress(Math.max(handedOff, in), d, List.copyOf(union));
        }

        /** Whether the record at {@code offset} is known settled. */
        boolean settled(long offset) {
            return offset <= drained || java.util.Collections.binarySearch(settledAbove, offset) >= 0;
        }
    }

    /**
     * What is known of one destination: its suspension, and its progress per {@code alert-retry} partition (an
     * offset means nothing without its partition: a destination's records move to another partition when the
     * topic gets more, and a new owner must not skip one partition's records by another's offset).
     */
    record State(boolean suspended, String reason, long changedAt, String by, long resumedAt,
                 Map<Integer, Progress> progress) {
        static final State NONE = new State(false, null, 0, null, 0, Map.of());

        State {
            progress = Map.copyOf(progress);
        }

        /** Pairs handed off for it that the retry path has not settled yet (as far as published), any partition. */
        boolean backlogged() {
            return progress.values().stream().anyMatch(p -> p.handedOff() > p.drained());
        }

        /** Its progress on one partition. */
        Progress on(int partition) {
            return progress.getOrDefault(partition, Progress.NONE);
        }

        /** The highest offset settled for it on {@code partition}, {@code -1} when none. */
        long drained(int partition) {
            return on(partition).drained();
        }

        /** Whether its record at {@code offset} of {@code partition} is known settled (drained, or above it). */
        boolean settled(int partition, long offset) {
            return on(partition).settled(offset);
        }

        State withSuspension(boolean suspended, String reason, long at, String by) {
            return new State(suspended, reason, at, by, suspended ? resumedAt : at, progress);
        }

        State withProgress(int partition, long in, long out, List<Long> above) {
            Map<Integer, Progress> next = new HashMap<>(progress);
            next.put(partition, on(partition).max(in, out, above));
            return new State(suspended, reason, changedAt, by, resumedAt, next);
        }
    }

    /**
     * One record on the topic; {@code partition} is the {@code alert-retry} partition of a progress record (absent
     * in records written before progress was kept per partition: then the destination's partition by its key).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Change(String groupId, String destination, String kind, Boolean suspended, String reason, long at,
                  String by, Integer partition, Long handedOff, Long drained, List<Long> settledAbove, Long offset) {
    }

    private final RetrySettings settings;
    private final Producer<String, String> producer;
    private final Clock clock;
    private final ToIntFunction<String> homePartition;
    private final Map<String, State> states = new ConcurrentHashMap<>();
    /**
     * At-most-once records a retry path is sending or sent without a settlement yet, per destination: "partition-offset"
     * (decision 2104). A new owner that finds one dead-letters the record as outcome unknown instead of sending it.
     */
    private final Map<String, java.util.Set<String>> attempts = new ConcurrentHashMap<>();
    /** Attempt marks of settled records, removed after the next progress publish (in order on the one partition). */
    private final java.util.Queue<String> settledMarks = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Per destination and partition, {handedOff, drained, settledAbove changed} not published yet. */
    private final Map<String, Map<Integer, long[]>> unpublished = new ConcurrentHashMap<>();
    /** The reader of the state topic: one that dies is restarted, resuming where it stood. */
    private final ViewReader<String, String> reader;

    /**
     * @param homePartition the {@code alert-retry} partition of a destination by its key: where a progress record
     *                      without a partition (written before progress was kept per partition) belongs
     */
    DestinationStates(RetrySettings settings, Producer<String, String> producer, Map<String, Object> kafka,
                      ToIntFunction<String> homePartition, Clock clock) {
        this.settings = settings;
        this.producer = producer;
        this.homePartition = homePartition;
        this.clock = clock;
        this.reader = ViewReader.builder("destination-state reader of " + settings.stateTopic(), kafka,
                        StringDeserializer::new, StringDeserializer::new)
                .partitions(List.of(new TopicPartition(settings.stateTopic(), 0)))
                .handler(this::apply)
                .property(ConsumerConfig.CLIENT_ID_CONFIG, settings.groupId() + "-destination-states")
                .threadName(settings.groupId() + "-destination-states")
                .pollTimeout(Duration.ofMillis(200))
                // a reader that dies (one Kafka timeout) is restarted like the service's other topic readers; given
                // up, the retry path is not live (/health/live)
                .restarts(settings.recheckInterval(), settings.recheckInterval().multipliedBy(30), RESTARTS)
                .closeTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** Consecutive failed restarts of the state reader before it is given up. */
    static final int RESTARTS = 10;

    /** False once the state reader died and could not be restarted {@value #RESTARTS} times in a row. */
    boolean alive() {
        return reader.alive();
    }

    /** How many times a dead state reader was restarted. */
    long readerRestarts() {
        return reader.restarts();
    }

    /** Starts the reader and waits (bounded by {@code retry.stateCatchUp}) until it read the topic to its end. */
    void start() {
        reader.start();
        boolean read;
        try {
            read = reader.awaitCaughtUp(settings.stateCatchUp());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading destination states", e);
        }
        if (!read) {
            throw new IllegalStateException("destination states (" + settings.stateTopic() + ") not read within "
                    + "retry.stateCatchUp " + settings.stateCatchUp());
        }
    }

    private void apply(ConsumerRecord<String, String> r) {
        if (r.value() == null) {
            forgetAttempt(r.key());
            return;
        }
        Change c;
        try {
            c = Json.mapper().readValue(r.value(), Change.class);
        } catch (JsonProcessingException e) {
            LOG.warn("unreadable destination state at {}-{}@{} skipped: {}", r.topic(), r.partition(), r.offset(),
                    e.getOriginalMessage());
            return;
        }
        if (settings.groupId().equals(c.groupId()) && c.destination() != null) {
            merge(c);
        }
    }

    /** Merges a change: a suspension record by time, progress by maximum per partition. */
    private void merge(Change c) {
        states.compute(c.destination(), (k, old) -> {
            State s = old == null ? State.NONE : old;
            if (SUSPENSION.equals(c.kind()) && c.suspended() != null && c.at() >= s.changedAt()) {
                s = s.withSuspension(c.suspended(), c.reason(), c.at(), c.by());
            } else if (PROGRESS.equals(c.kind())) {
                int partition = c.partition() != null ? c.partition() : homePartition.applyAsInt(c.destination());
                s = s.withProgress(partition, c.handedOff() == null ? -1 : c.handedOff(),
                        c.drained() == null ? -1 : c.drained(),
                        c.settledAbove() == null ? List.of() : c.settledAbove());
            }
            return s;
        });
        if (ATTEMPT.equals(c.kind()) && c.partition() != null && c.offset() != null) {
            attempts.computeIfAbsent(c.destination(), k -> ConcurrentHashMap.newKeySet())
                    .add(c.partition() + "-" + c.offset());
        }
        trim();
    }

    /** A tombstone of an attempt mark: the record it named was settled (or known not received). */
    private void forgetAttempt(String key) {
        String prefix = settings.groupId() + "/";
        int at = key == null ? -1 : key.lastIndexOf("/" + ATTEMPT + "-");
        if (at <= prefix.length() || !key.startsWith(prefix)) {
            return;
        }
        String destination = key.substring(prefix.length(), at);
        java.util.Set<String> marks = attempts.get(destination);
        if (marks != null) {
            marks.remove(key.substring(at + ATTEMPT.length() + 2));
            if (marks.isEmpty()) {
                attempts.remove(destination, marks);
            }
        }
    }

    /**
     * Whether an at-most-once send of the destination's record at {@code offset} of {@code partition} was started
     * (by any instance) and neither settled nor known not received since.
     */
    boolean attempted(String destination, int partition, long offset) {
        java.util.Set<String> marks = attempts.get(destination);
        return marks != null && marks.contains(partition + "-" + offset) && !of(destination).settled(partition, offset);
    }

    /**
     * Marks an at-most-once send of the record at {@code offset} of {@code partition} as started; returns when acked
     * (before the send goes out), so a crash after the send leaves the mark for the next owner.
     */
    void attempting(String destination, int partition, long offset) {
        write(new Change(settings.groupId(), destination, ATTEMPT, null, null, clock.millis(), null, partition, null,
                null, null, offset));
    }

    /** The record's at-most-once send was not taken (answered so, or never sent): its mark goes now (not awaited). */
    void attemptEnded(String destination, int partition, long offset) {
        String key = key(destination, ATTEMPT + "-" + partition + "-" + offset);
        forgetAttempt(key);
        tombstone(key);
    }

    /**
     * The record at {@code offset} of {@code partition} settled (its progress recorded): a mark it has goes with the
     * next publish, after the progress that says it settled — never before, or a new owner could send it again.
     */
    void settledMark(String destination, int partition, long offset) {
        java.util.Set<String> marks = attempts.get(destination);
        if (marks != null && marks.contains(partition + "-" + offset)) {
            settledMarks.add(key(destination, ATTEMPT + "-" + partition + "-" + offset));
        }
    }

    private void tombstone(String key) {
        producer.send(new ProducerRecord<>(settings.stateTopic(), 0, key, null), (meta, error) -> {
            if (error != null) {
                // left on the topic: harmless once the record is settled (a mark at or below progress means nothing)
                LOG.warn("attempt mark {} not removed: {}", key, error.toString());
            }
        });
    }

    /** Keeps at most {@code retry.maxDestinations}: drops destinations neither suspended nor backlogged first. */
    private void trim() {
        if (states.size() <= settings.maxDestinations()) {
            return;
        }
        for (Map.Entry<String, State> e : states.entrySet()) {
            if (states.size() <= settings.maxDestinations()) {
                return;
            }
            if (!e.getValue().suspended() && !e.getValue().backlogged()) {
                states.remove(e.getKey(), e.getValue());
            }
        }
    }

    /** The state of a destination ({@link State#NONE} when nothing is known). */
    State of(String destination) {
        return states.getOrDefault(destination, State.NONE);
    }

    /** Every destination known to be suspended, with its state. */
    Map<String, State> suspended() {
        Map<String, State> out = new HashMap<>();
        states.forEach((k, v) -> {
            if (v.suspended()) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Suspends a destination group-wide; returns when acked (then this instance sees it at once). */
    void suspend(String destination, String reason, String by) {
        write(new Change(settings.groupId(), destination, SUSPENSION, true, reason, clock.millis(), by, null, null,
                null, null, null));
    }

    /** Resumes a destination group-wide (also: its waiting pairs are tried now); returns when acked. */
    void resume(String destination, String by) {
        write(new Change(settings.groupId(), destination, SUSPENSION, false, "resumed", clock.millis(), by, null,
                null, null, null, null));
    }

    /** This instance handed off a pair of the destination at {@code offset} of {@code alert-retry}'s partition. */
    void handedOff(String destination, int partition, long offset) {
        progress(destination, partition, offset, -1, List.of());
    }

    /**
     * The retry path settled the destination's record at {@code offset} of {@code partition} (and, per key order,
     * every earlier one of it there).
     */
    void drained(String destination, int partition, long offset) {
        progress(destination, partition, -1, offset, List.of());
    }

    /**
     * The retry path settled the destination's record at {@code offset} of {@code partition} while an earlier one
     * there is not settled yet (records tried concurrently settle out of order).
     */
    void settledAbove(String destination, int partition, long offset) {
        progress(destination, partition, -1, -1, List.of(offset));
    }

    private void progress(String destination, int partition, long handedOff, long drained, List<Long> above) {
        Change c = new Change(settings.groupId(), destination, PROGRESS, null, null, clock.millis(), null,
                partition, handedOff, drained, above, null);
        merge(c); // at once here; the others see it after the next publish
        unpublished.computeIfAbsent(destination, k -> new ConcurrentHashMap<>()).merge(partition,
                new long[] {handedOff, drained, above.isEmpty() ? 0 : 1}, DestinationStates::newest);
    }

    private static long[] newest(long[] a, long[] b) {
        return new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.max(a[2], b[2])};
    }

    /** Sends the newest progress of each destination and waits for the acks (bounded by the ack timeout). */
    void publishNow() {
        publish();
        try {
            producer.flush();
        } catch (RuntimeException e) {
            LOG.warn("retry progress not flushed: {}", e.toString());
        }
    }

    /**
     * Waits (bounded by {@code retry.stateCatchUp}) until the reader has read what the topic held at this call, so a
     * new owner of retry partitions knows what the previous one settled. Returns false when it could not in time.
     */
    boolean awaitCurrent() {
        if (reader.awaitCurrent(settings.stateCatchUp())) {
            return true;
        }
        if (!Thread.currentThread().isInterrupted()) {
            LOG.warn("destination states not read to their end within retry.stateCatchUp {}", settings.stateCatchUp());
        }
        return false;
    }

    /** Sends the newest progress of each destination (not waiting for acks), then the marks it settled go. */
    void publish() {
        List<String> marks = new java.util.ArrayList<>();
        for (String m; (m = settledMarks.poll()) != null; ) {
            marks.add(m); // taken before the progress is read: each one's settlement is in what goes out now
        }
        publishProgress();
        for (String key : marks) {
            forgetAttempt(key);
            tombstone(key);
        }
    }

    private void publishProgress() {
        for (String destination : List.copyOf(unpublished.keySet())) {
            Map<Integer, long[]> byPartition = unpublished.remove(destination);
            if (byPartition == null) {
                continue;
            }
            byPartition.forEach((partition, p) -> {
                // what is settled goes out whole (drained and every offset settled above it, as known here now):
                // the topic is compacted, so the newest record of a key is all a new owner reads of it
                boolean out = p[1] >= 0 || p[2] > 0;
                Progress known = of(destination).on(partition);
                Change c = new Change(settings.groupId(), destination, PROGRESS, null, null, clock.millis(), null,
                        partition, p[0] < 0 ? null : p[0], out && known.drained() >= 0 ? known.drained() : null,
                        out && !known.settledAbove().isEmpty() ? known.settledAbove() : null, null);
                String kind = PROGRESS + "-" + partition + (p[0] >= 0 ? "-in" : "") + (out ? "-out" : "");
                producer.send(record(c, key(destination, kind)), (meta, error) -> {
                    if (error != null) {
                        LOG.warn("retry progress of {} not published (sent again with the next): {}", destination,
                                error.toString());
                        unpublished.computeIfAbsent(destination, k -> new ConcurrentHashMap<>()).merge(partition, p,
                                DestinationStates::newest);
                    }
                });
            });
        }
    }

    private void write(Change c) {
        try {
            String kind = ATTEMPT.equals(c.kind()) ? ATTEMPT + "-" + c.partition() + "-" + c.offset() : c.kind();
            producer.send(record(c, key(c.destination(), kind))).get(settings.ackTimeout().toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RetryLaterException("interrupted while writing the state of " + c.destination(), e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new RetryLaterException("state of destination " + c.destination() + " not acked within "
                    + settings.ackTimeout().toMillis() + " ms: " + e, e);
        }
        merge(c);
    }

    private String key(String destination, String kind) {
        return settings.groupId() + "/" + destination + "/" + kind;
    }

    private ProducerRecord<String, String> record(Change c, String key) {
        try {
            return new ProducerRecord<>(settings.stateTopic(), 0, key, Json.mapper().writeValueAsString(c));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The reason a destination is suspended, if it is. */
    Optional<String> suspension(String destination) {
        State s = of(destination);
        return s.suspended() ? Optional.of(s.reason() == null ? "suspended" : s.reason()) : Optional.empty();
    }

    @Override
    public void close() {
        reader.close();
    }
}
