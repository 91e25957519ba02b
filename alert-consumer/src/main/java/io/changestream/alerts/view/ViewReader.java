package io.changestream.alerts.view;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader of one read-only, in-memory view of Kafka topics (decision 2702): "read to the end, then follow". One
 * consumer without a group, assigned (never subscribed) to every partition of some topics or to given partitions,
 * reads from the beginning — after a restart from where the view stands — and hands every record to the owner's
 * {@link Handler}, which keeps the view's state and its semantics (names, dedupe, merges). It owns:
 * <ul>
 *   <li>the consumer and its poll loop on one daemon thread;</li>
 *   <li>{@link #awaitApplied}: a bounded wait until the record at an offset was applied (read-your-writes);</li>
 *   <li>catching up: the view caught up when every partition reached the end offsets read when the reader opened
 *       ({@link #awaitCaughtUp}, bounded); with {@link Builder#confirmEvery} it asks the broker for the end offsets
 *       that often afterwards and {@link Handler#atEnd} says each time the view held them, so its owner can judge
 *       staleness (a reader cut off from the broker keeps polling empty and stops confirming; a topic that no longer
 *       exists is a failure);</li>
 *   <li>{@link #awaitCurrent}: a bounded wait until the reader passed the end offsets as of the call, so an answer
 *       includes everything acknowledged before it;</li>
 *   <li>restarts: a reader that fails is replaced after a backoff ({@code io.changestream.runtime.Backoff}, doubled
 *       per consecutive failure), resuming at the positions reached (from the beginning where the log is now shorter:
 *       cut or recreated); a catch-up resets the count; after {@code maxRestarts} failures in a row it is given up
 *       and {@link #alive()} is false;</li>
 *   <li>a bounded {@link #close()}.</li>
 * </ul>
 * It knows nothing of the alert domain. Used by the subscriptions view, the retry path's destination states and the
 * {@code /status} view. Not used where a read is a bounded range, not "to the end, then follow": the ledger window
 * rebuild (one partition, the newest {@code ledger.rebuildMaxRecords} records since the dedupe horizon up to the end
 * offset at assignment, on a pool with one deadline, retried while the partition is owned, then done), the digest
 * flusher's take-over (a partition the group just assigned, its markers from the committed offset to the end, read
 * inside the rebalance callback before the group's consumer is put back) and the status endpoints'
 * {@code diagnostics.TopicReader} (ranges and single records on request threads, bounded by counts and deadlines).
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ViewReader<K, V> implements AutoCloseable {

    /** What the owner of a view hears, on the reader thread: it keeps the view's state and must not block long. */
    public interface Handler<K, V> {
        /** One record (a null value is a tombstone), in offset order per partition. */
        void apply(ConsumerRecord<K, V> record);

        /** The view held every record the broker had when the end offsets were last read (caught up, or confirmed). */
        default void atEnd() {
        }
    }

    /** What a reader that fails before the view ever caught up means. */
    public enum Start {
        /** It is restarted like any other. */
        RESTART,
        /** {@link #start()} opens the first reader (partitions, assignment, end offsets) and throws when it cannot. */
        OPEN_FIRST,
        /** It is not restarted: {@link #awaitCaughtUp} throws its failure (a view that never read its topic). */
        FAIL_UNTIL_CAUGHT_UP
    }

    private static final Logger LOG = LoggerFactory.getLogger(ViewReader.class);
    /** Poll timeout while someone waits in {@link #awaitCurrent}: an idle poll does not hold the answer back. */
    private static final Duration WAITED_POLL = Duration.ofMillis(20);
    /** A consumer without a group has nothing to leave or commit. */
    private static final Duration CONSUMER_CLOSE = Duration.ofSeconds(1);

    private final Builder<K, V> options;
    private final Map<String, Object> props;
    private final ReaderSupervisor supervisor;
    /** The next offset to read per partition, kept across restarts: a restarted reader resumes there. */
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    private final CountDownLatch firstCatchUp = new CountDownLatch(1);
    private final AtomicLong requested = new AtomicLong();
    /** Waiters for an applied offset or for the end offsets; notified after each poll and when a ticket is served. */
    private final Object progressLock = new Object();
    private long served;
    private volatile boolean everCaughtUp;
    private volatile Throwable startFailure;
    private volatile Incarnation current;
    private boolean started;
    private volatile boolean closed;

    private ViewReader(Builder<K, V> options) {
        this.options = options;
        Map<String, Object> p = new HashMap<>(options.kafka);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"); // out of range (retention): skip nothing
        p.putAll(options.properties);
        this.props = p;
        this.supervisor = new ReaderSupervisor(options.what, options.restartBackoff, options.restartMaxBackoff,
                options.maxRestarts, this::restart);
    }

    /**
     * A reader to configure.
     *
     * @param what   the reader, for logs, threads and {@link #health()} ({@code "subscriptions reader of t"})
     * @param kafka  client properties ({@code bootstrap.servers}, security); a {@code group.id} is ignored
     * @param keys   a key deserializer for each consumer the reader makes
     * @param values a value deserializer for each consumer the reader makes
     */
    public static <K, V> Builder<K, V> builder(String what, Map<String, Object> kafka,
                                               Supplier<? extends Deserializer<K>> keys,
                                               Supplier<? extends Deserializer<V>> values) {
        return new Builder<>(what, kafka, keys, values);
    }

    /** One consumer and its thread; a restart makes a new one. Its loop state is its thread's alone. */
    private final class Incarnation {
        final KafkaConsumer<K, V> consumer = new KafkaConsumer<>(props, options.keys.get(), options.values.get());
        final Thread thread = new Thread(() -> run(this), options.threadName);
        volatile boolean running = true;
        volatile Throwable injected;
        List<TopicPartition> partitions;
        Map<TopicPartition, Long> ends;
        boolean caughtUp;
        long nextConfirm;
        Map<TopicPartition, Long> target;
        long targetTicket;

        Incarnation() {
            thread.setDaemon(true);
        }

        void throwIfKilled() throws Throwable {
            Throwable failure = injected;
            if (failure != null) {
                throw failure;
            }
        }

        void closeConsumer() {
            try {
                consumer.close(CONSUMER_CLOSE);
            } catch (RuntimeException e) {
                LOG.debug("closing the consumer of the {} failed", options.what, e);
            }
        }
    }

    /**
     * Starts the first reader. With {@link Start#OPEN_FIRST} it opens on this thread first.
     *
     * @throws IllegalStateException when started twice, or (OPEN_FIRST) when a topic does not exist
     */
    public synchronized void start() {
        if (started || closed) {
            throw new IllegalStateException(options.what + " is started or closed already");
        }
        started = true;
        Incarnation first = new Incarnation();
        if (options.start == Start.OPEN_FIRST) {
            try {
                open(first);
            } catch (RuntimeException e) {
                first.closeConsumer();
                throw e;
            }
        }
        current = first;
        first.thread.start();
    }

    /** The supervisor's restart: a new reader that resumes at the positions reached. */
    private synchronized void restart() {
        if (closed) {
            return;
        }
        Incarnation next = new Incarnation();
        current = next;
        next.thread.start();
    }

    /** Finds the partitions, assigns them, reads their end offsets and puts each at its position. */
    private void open(Incarnation in) {
        KafkaConsumer<K, V> consumer = in.consumer;
        List<TopicPartition> partitions = options.partitions;
        if (partitions == null) {
            partitions = new ArrayList<>();
            for (String topic : options.topics) {
                List<PartitionInfo> infos = options.openTimeout == null ? consumer.partitionsFor(topic)
                        : consumer.partitionsFor(topic, options.openTimeout);
                if (infos == null || infos.isEmpty()) { // Kafka answers an unknown topic with no partitions
                    throw new IllegalStateException("topic " + topic + " does not exist (no partitions)");
                }
                for (PartitionInfo i : infos) {
                    partitions.add(new TopicPartition(i.topic(), i.partition()));
                }
            }
        }
        consumer.assign(partitions);
        Map<TopicPartition, Long> ends = options.openTimeout == null ? consumer.endOffsets(partitions)
                : consumer.endOffsets(partitions, options.openTimeout);
        List<TopicPartition> fromStart = new ArrayList<>();
        for (TopicPartition p : partitions) {
            Long at = positions.get(p);
            if (at == null || at > ends.getOrDefault(p, Long.MAX_VALUE)) { // new, or its log was cut or recreated
                fromStart.add(p);
            } else {
                consumer.seek(p, at);
            }
        }
        if (!fromStart.isEmpty()) { // an empty list would mean every assigned partition
            consumer.seekToBeginning(fromStart);
        }
        in.partitions = List.copyOf(partitions);
        in.ends = ends;
    }

    private void run(Incarnation in) {
        Throwable failure = null;
        try {
            if (in.partitions == null) {
                open(in);
            }
            while (in.running) {
                progress(in);
                Duration poll = in.target == null ? options.pollTimeout : min(options.pollTimeout, WAITED_POLL);
                for (ConsumerRecord<K, V> r : in.consumer.poll(poll)) {
                    options.handler.apply(r);
                }
            }
        } catch (WakeupException e) {
            if (in.injected != null) {
                failure = in.injected;
            } else if (in.running && !closed) {
                failure = new IllegalStateException(options.what + " woken unexpectedly", e);
            }
        } catch (Throwable e) {
            failure = e;
        } finally {
            in.running = false;
            in.closeConsumer();
            exited(failure);
        }
    }

    /** After each poll: positions, the catch-up, a confirmation when due, a waiting caller's end offsets. */
    private void progress(Incarnation in) throws Throwable {
        in.throwIfKilled();
        for (TopicPartition p : in.partitions) {
            positions.put(p, in.consumer.position(p));
        }
        synchronized (progressLock) {
            progressLock.notifyAll(); // writers waiting for their record
        }
        long now = options.clock.millis();
        long confirmMillis = options.confirmEvery == null ? 0 : options.confirmEvery.toMillis();
        if (!in.caughtUp && reached(in, in.ends)) {
            in.caughtUp = true;
            in.nextConfirm = now + confirmMillis;
            atEnd();
        } else if (in.caughtUp && options.confirmEvery != null && now >= in.nextConfirm) {
            in.nextConfirm = now + confirmMillis;
            if (holdsTheEnd(in)) {
                atEnd();
            }
        }
        long ticket = requested.get();
        if (in.target == null && ticket > servedTicket()) {
            in.target = in.consumer.endOffsets(in.partitions);
            in.targetTicket = ticket;
        }
        if (in.target != null && reached(in, in.target)) {
            in.target = null;
            synchronized (progressLock) {
                served = in.targetTicket;
                progressLock.notifyAll();
            }
            atEnd();
        }
    }

    /** The view holds the end offsets read last: the owner hears it first, then the waiters and the supervisor. */
    private void atEnd() {
        options.handler.atEnd();
        everCaughtUp = true;
        firstCatchUp.countDown();
        supervisor.fresh(); // it caught up: its next death counts as the first in a row
    }

    private boolean reached(Incarnation in, Map<TopicPartition, Long> ends) {
        for (TopicPartition p : in.partitions) {
            if (positions.get(p) < ends.getOrDefault(p, Long.MAX_VALUE)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the view holds every record the broker has now; false when the broker does not answer in time. */
    private boolean holdsTheEnd(Incarnation in) {
        Duration timeout = options.confirmEvery;
        Map<TopicPartition, Long> ends;
        try {
            ends = in.consumer.endOffsets(in.partitions, timeout);
        } catch (TimeoutException e) {
            // the broker does not answer (the view ages), or a topic is gone (nothing to read: the reader fails)
            Set<String> topics = new LinkedHashSet<>();
            in.partitions.forEach(p -> topics.add(p.topic()));
            for (String topic : topics) {
                List<PartitionInfo> infos = in.consumer.partitionsFor(topic, timeout);
                if (infos != null && infos.isEmpty()) {
                    throw new IllegalStateException("topic " + topic + " no longer exists", e);
                }
            }
            return false;
        }
        return reached(in, ends);
    }

    private void exited(Throwable failure) {
        if (closed || failure == null) {
            return;
        }
        if (options.start == Start.FAIL_UNTIL_CAUGHT_UP && !everCaughtUp) {
            startFailure = failure;
            firstCatchUp.countDown();
            return;
        }
        supervisor.exited(failure);
    }

    private long servedTicket() {
        synchronized (progressLock) {
            return served;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * Waits until the view caught up once: it read every partition to the end offsets its first reader found.
     *
     * @return false when it did not within {@code timeout}
     * @throws IllegalStateException with {@link Start#FAIL_UNTIL_CAUGHT_UP}, when the first reader failed first
     *                               (its failure is the cause)
     */
    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        boolean done = firstCatchUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Throwable failure = startFailure;
        if (failure != null) {
            throw new IllegalStateException(options.what + " failed before it caught up: " + failure, failure);
        }
        return done && everCaughtUp;
    }

    /**
     * Waits until the reader passed the end offsets as of this call (a reader restarted meanwhile serves it too).
     *
     * @return false when not within {@code timeout}, when closed or interrupted
     */
    public boolean awaitCurrent(Duration timeout) {
        if (closed) {
            return false;
        }
        long ticket = requested.incrementAndGet();
        return await(() -> served >= ticket, timeout);
    }

    /**
     * Waits until the record at {@code offset} of {@code partition} was applied (read-your-writes: the offset of an
     * acked write).
     *
     * @return false when not within {@code timeout}, or interrupted
     */
    public boolean awaitApplied(TopicPartition partition, long offset, Duration timeout) {
        return await(() -> positions.getOrDefault(partition, 0L) > offset, timeout);
    }

    /** Waits on the progress lock until {@code done} (checked under it); false at the timeout or when interrupted. */
    private boolean await(BooleanSupplier done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progressLock) {
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(progressLock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** Whether a reader thread runs now (false between a failure and its restart, and after close). */
    public boolean running() {
        Incarnation in = current;
        return in != null && in.running && in.thread.isAlive();
    }

    /** False once a failed reader was given up ({@code maxRestarts} failures in a row). */
    public boolean alive() {
        return supervisor.alive();
    }

    /** How many times a failed reader was restarted. */
    public long restarts() {
        return supervisor.restarts();
    }

    /** Why not alive ("… given up after n restarts"), or null while alive. */
    public String health() {
        return supervisor.health();
    }

    /** Test hook: the current reader fails with {@code failure} as soon as it notices (at once when it polls). */
    public void kill(Throwable failure) {
        Incarnation in = current;
        if (in != null) {
            in.injected = Objects.requireNonNull(failure, "failure");
            in.consumer.wakeup();
        }
    }

    /** Stops the reader (its thread joined within the close timeout) and every restart; idempotent. */
    @Override
    public void close() {
        Incarnation in;
        synchronized (this) {
            closed = true; // no restart starts a reader after this
            in = current;
        }
        supervisor.close();
        if (in == null) {
            return;
        }
        in.running = false;
        try {
            in.consumer.wakeup();
        } catch (RuntimeException e) {
            LOG.debug("the {} stopped already", options.what, e);
        }
        if (Thread.currentThread() == in.thread) {
            return;
        }
        try {
            in.thread.join(options.closeTimeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * How a {@link ViewReader} reads. Required: {@link #topics} or {@link #partitions}, {@link #handler},
     * {@link #restarts}. One builder builds one reader (the reader keeps reading its options).
     *
     * @param <K> key type
     * @param <V> value type
     */
    public static final class Builder<K, V> {
        private final String what;
        private final Map<String, Object> kafka;
        private final Supplier<? extends Deserializer<K>> keys;
        private final Supplier<? extends Deserializer<V>> values;
        private final Map<String, Object> properties = new HashMap<>();
        private List<String> topics;
        private List<TopicPartition> partitions;
        private Handler<K, V> handler;
        private String threadName;
        private Duration pollTimeout = Duration.ofMillis(100);
        private Duration openTimeout;
        private Duration confirmEvery;
        private Duration restartBackoff;
        private Duration restartMaxBackoff;
        private int maxRestarts;
        private Start start = Start.RESTART;
        private Clock clock = Clock.systemUTC();
        private Duration closeTimeout = Duration.ofSeconds(10);

        private Builder(String what, Map<String, Object> kafka, Supplier<? extends Deserializer<K>> keys,
                        Supplier<? extends Deserializer<V>> values) {
            this.what = Objects.requireNonNull(what, "what");
            this.kafka = Map.copyOf(Objects.requireNonNull(kafka, "kafka"));
            this.keys = Objects.requireNonNull(keys, "keys");
            this.values = Objects.requireNonNull(values, "values");
            this.threadName = what;
        }

        /** Every partition of these topics (looked up at each open: a partition added shows after a restart). */
        public Builder<K, V> topics(List<String> names) {
            this.topics = List.copyOf(names);
            return this;
        }

        /** Just these partitions. */
        public Builder<K, V> partitions(List<TopicPartition> list) {
            this.partitions = List.copyOf(list);
            return this;
        }

        /** Who applies the records. */
        public Builder<K, V> handler(Handler<K, V> h) {
            this.handler = h;
            return this;
        }

        /** A consumer property beyond the reader's own (no group, no auto commit, earliest), e.g. client.id. */
        public Builder<K, V> property(String key, Object value) {
            properties.put(key, value);
            return this;
        }

        /** The reader threads' name (default: {@code what}). */
        public Builder<K, V> threadName(String name) {
            this.threadName = Objects.requireNonNull(name, "threadName");
            return this;
        }

        /** How long one poll waits for records (default 100 ms): how late a new record is seen at most. */
        public Builder<K, V> pollTimeout(Duration timeout) {
            this.pollTimeout = timeout;
            return this;
        }

        /** The bound of the partition lookup and the end offsets read at open (default: the client's API timeout). */
        public Builder<K, V> openTimeout(Duration timeout) {
            this.openTimeout = timeout;
            return this;
        }

        /** After the catch-up, read the end offsets this often (bounded by as long) to confirm the view holds them. */
        public Builder<K, V> confirmEvery(Duration interval) {
            this.confirmEvery = interval;
            return this;
        }

        /** A failed reader restarts after {@code backoff}, doubled up to {@code maxBackoff}; n in a row: given up. */
        public Builder<K, V> restarts(Duration backoff, Duration maxBackoff, int n) {
            this.restartBackoff = backoff;
            this.restartMaxBackoff = maxBackoff;
            this.maxRestarts = n;
            return this;
        }

        /** What a failure before the first catch-up means (default {@link Start#RESTART}). */
        public Builder<K, V> start(Start how) {
            this.start = Objects.requireNonNull(how, "start");
            return this;
        }

        /** The clock confirmations are scheduled by (the owner's, which judges the view's age). */
        public Builder<K, V> clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /** How long {@link ViewReader#close()} waits for the thread (default 10 s). */
        public Builder<K, V> closeTimeout(Duration timeout) {
            this.closeTimeout = Objects.requireNonNull(timeout, "closeTimeout");
            return this;
        }

        /** The reader, not started. */
        public ViewReader<K, V> build() {
            if ((topics == null) == (partitions == null)) {
                throw new IllegalArgumentException(what + ": topics or partitions, one of them");
            }
            Objects.requireNonNull(handler, "handler");
            Objects.requireNonNull(restartBackoff, "restarts");
            positive(pollTimeout, "pollTimeout");
            if (confirmEvery != null) {
                positive(confirmEvery, "confirmEvery");
            }
            return new ViewReader<>(this);
        }

        private void positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + ": " + name + " must be > 0, was " + d);
            }
        }
    }
}
