package io.changestream.alerts.digest;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.DigestDelivery;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.topics.model.DigestRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.JsonSerde;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush side of digests and grouping: one thread per instance (window state in {@link DigestPartition} and
 * {@link DigestWindow}, sending in {@link DigestRounds} over {@link DigestSender}), a consumer of
 * {@code alert-digest} in the group {@link DigestSettings#groupId()}, so each partition — and with it every window of the subscription groups keyed to
 * it — has one owner. The owner keeps per key (subscription + group) its windows: members counted by entity and
 * event type, the first {@link DigestSettings#topChanges()} in full. A window is due at the schedule's next tick after
 * its first member (Scheduled), or after {@code groupWait} for a new group and {@code groupInterval} after the group's
 * last message (grouping). Then the owner
 * <ol>
 *   <li>writes {@link DigestRecord#SEALED} (acked): the window is the key's entries up to its last offset, under a
 *       flush id derived from subscription, group and window (its first offset on the partition);</li>
 *   <li>sends the message to each destination group of the subscription, in key order, writing
 *       {@link DigestRecord#SENT} after each (a permanent failure or exhausted {@code retries} dead-letters the
 *       message instead). Sends do not block this thread ({@link DigestSender}, issue 21 item 6): at most
 *       {@code digest.maxInFlightPerDestination} per destination, each cancelled after {@code digest.sendTimeout}
 *       (a failed attempt); the results come back at the next loop, so a hanging receiver holds back only the later
 *       windows of its own key, never another key's message nor the thread's polls (and with them its
 *       partitions);</li>
 *   <li>settles the flush in {@code alert-ledger} (event id = flush id), and commits the partition up to the oldest
 *       window not yet sent.</li>
 * </ol>
 * An owner that takes a partition over (restart, rebalance) first reads its markers from the committed offset to the
 * end, then re-reads the entries: an entry at or below a sealed window's last offset belongs to that window (sent
 * again only to the destination groups without {@code SENT}, under the same id — the receivers' Idempotency-Key);
 * the rest form the open windows. So a restart or rebalance neither loses nor doubles a message, except the one a
 * crash interrupts between a receiver's 2xx and its {@code SENT} ack (at least once, like any delivery). Windows are
 * sealed only once their partition is read to the end as of its assignment.
 *
 * <p>Bounds: {@code digest.topChanges} members in full per window and {@code digest.maxListedBytes} of them in
 * all (beyond, members are counted, not listed), {@code digest.maxWindows} open windows (beyond, the oldest is
 * sealed early). Meters: {@code changestream_alert_digest_messages_total{outcome}},
 * {@code changestream_alert_digest_open_windows}, {@code changestream_alert_digest_listed_bytes},
 * {@code changestream_alert_digest_early_seals_total}.
 */
public final class DigestFlusher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DigestFlusher.class);
    /** Most distinct "entityType eventType" counts per window; the rest are counted as "other". */
    static final int MAX_COUNT_KEYS = 50;
    private static final Duration MAX_SEND_TIME_PER_LOOP = Duration.ofSeconds(30);
    /** Ticks a due window waits for its lagging partition to be read to the end before it is sealed anyway. */
    static final int DRAIN_TICKS = 10;
    /** Numbers the flusher threads of one JVM (several services in tests). */
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final DigestSettings settings;
    private final Map<String, Object> consumerProps;
    private final Supplier<List<ActiveSubscription>> subscriptions;
    private final DigestCollector policies;
    private final DigestSender sender;
    private final DigestRounds rounds;
    private final Clock clock;
    private final JsonSerde<DigestRecord> serde = JsonSerde.of(DigestRecord.class);
    private final Map<TopicPartition, DigestPartition> owned = new ConcurrentHashMap<>();
    private final Counter earlySeals;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile KafkaConsumer<String, String> consumer;
    private volatile boolean failed;
    private final AtomicInteger openWindows = new AtomicInteger();
    /** Bytes of the listed members of every window held (updated by the flusher thread only). */
    private final AtomicLong listedBytes = new AtomicLong();

    /**
     * @param kafka    client properties ({@code bootstrap.servers}, security)
     * @param producer producer of markers (acks=all), owned by the caller
     */
    public DigestFlusher(DigestSettings settings, Map<String, Object> kafka,
                         Supplier<List<ActiveSubscription>> subscriptions, DigestCollector policies,
                         DigestDelivery delivery, DeliveryLedger ledger, DeadLetterWriter deadLetters,
                         Producer<String, String> producer, MeterRegistry meters, Clock clock) {
        this.settings = settings;
        this.subscriptions = subscriptions;
        this.policies = policies;
        this.clock = clock;
        this.consumerProps = new HashMap<>(kafka);
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        long maxPollInterval = Long.parseLong(String.valueOf(consumerProps.getOrDefault(
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000)));
        if (settings.sendTimeout().toMillis() >= maxPollInterval) {
            throw new IllegalArgumentException("digest.sendTimeout (" + settings.sendTimeout() + ") must be below "
                    + "the digest flusher's max.poll.interval.ms (" + maxPollInterval + " ms): a revoke waits for "
                    + "running sends");
        }
        this.sender = new DigestSender(delivery, settings);
        this.rounds = new DigestRounds(settings, policies, sender, ledger, deadLetters, producer, subscriptions,
                owned, meters, clock);
        this.earlySeals = AlertMeter.DIGEST_EARLY_SEALS.counter()
                .register(meters);
        AlertMeter.DIGEST_OPEN_WINDOWS.gauge(openWindows, AtomicInteger::get).register(meters);
        AlertMeter.DIGEST_LISTED_BYTES.gauge(listedBytes, AtomicLong::get).baseUnit("bytes").register(meters);
        this.thread = new Thread(this::run, "cs-digest-flusher-" + INSTANCES.incrementAndGet());
        thread.setDaemon(true);
    }

    /** Starts the flusher thread. */
    public void start() {
        thread.start();
    }

    /** False once the flusher thread stopped on its own (its consumer could not be created or failed). */
    public boolean alive() {
        return !failed;
    }

    private void run() {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps, new StringDeserializer(),
                new StringDeserializer())) {
            consumer = c;
            c.subscribe(List.of(settings.topic()), new Listener(c));
            while (!stopping) {
                try {
                    for (ConsumerRecord<String, String> r : c.poll(settings.tick())) {
                        DigestPartition state = owned.get(new TopicPartition(r.topic(), r.partition()));
                        DigestRecord record = read(r);
                        if (state != null && record != null && DigestRecord.ENTRY.equals(record.kind())) {
                            state.apply(r, record);
                        }
                    }
                    List<TopicPartition> without = c.assignment().stream().filter(tp -> !owned.containsKey(tp))
                            .toList();
                    takeOver(c, without);
                    for (DigestPartition state : owned.values()) {
                        if (!state.caughtUp && c.position(state.tp) >= state.endAtAssignment) {
                            state.caughtUp = true;
                            // an empty partition says nothing worth a line at every start (issue 23)
                            if (state.byKey.isEmpty()) {
                                LOG.debug("digest partition {} read to its end: no keys with windows", state.tp);
                            } else {
                                LOG.info("digest partition {} read to its end: {} keys with windows", state.tp,
                                        state.byKey.size());
                            }
                        }
                    }
                    rounds.applyFinished();
                    flush(c);
                    commit(c, owned.keySet());
                    openWindows.set(owned.values().stream().mapToInt(DigestPartition::openWindows).sum());
                } catch (WakeupException e) {
                    // close() woke us up
                } catch (RuntimeException e) {
                    LOG.warn("digest flusher: {} (retried at the next tick)", e.toString());
                }
            }
            try {
                commit(c, owned.keySet());
            } catch (WakeupException e) {
                commit(c, owned.keySet()); // the wake-up of close() came after the last poll
            }
        } catch (RuntimeException e) {
            failed = !stopping;
            LOG.error("digest flusher stopped", e);
        } finally {
            drop(List.copyOf(owned.keySet()));
            openWindows.set(0);
        }
    }

    private DigestRecord read(ConsumerRecord<String, String> r) {
        if (r.value() == null) {
            return null;
        }
        try {
            return serde.fromJson(r.value());
        } catch (RuntimeException e) {
            LOG.warn("unreadable digest record at {}-{}@{} skipped: {}", r.topic(), r.partition(), r.offset(),
                    e.getMessage());
            return null;
        }
    }

    private void commit(KafkaConsumer<String, String> c, Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            DigestPartition state = owned.get(tp);
            if (state != null && state.caughtUp) {
                offsets.put(tp, new OffsetAndMetadata(state.safeOffset(c.position(tp))));
            }
        }
        if (!offsets.isEmpty()) {
            c.commitSync(offsets);
        }
    }

    /** Seals due windows and sends sealed ones, per key in order; bounded in time per loop. */
    private void flush(KafkaConsumer<String, String> c) {
        long started = System.nanoTime();
        Map<String, EventSubscription> byId = new HashMap<>();
        subscriptions.get().stream().filter(a -> a.subscription().enabled())
                .forEach(a -> byId.put(a.id(), a.subscription())); // a disabled one's due windows are dropped
        sealOverBudget();
        for (DigestPartition state : owned.values()) {
            if (!state.caughtUp) {
                continue;
            }
            Drained drained = new Drained(c, state.tp);
            var keys = state.byKey.entrySet().iterator();
            while (keys.hasNext() && !stopping) {
                Map.Entry<String, Deque<DigestWindow>> entry = keys.next();
                Deque<DigestWindow> windows = entry.getValue();
                while (!windows.isEmpty() && !stopping) {
                    DigestWindow head = windows.peekFirst();
                    EventSubscription sub = byId.get(head.subscriptionId);
                    if (!head.sealed() && !due(state, head, sub, drained)) {
                        break;
                    }
                    if (!head.sealed()) {
                        seal(state, head);
                    }
                    if (sub == null) {
                        LOG.info("digest {} of subscription {} dropped: the subscription is deleted or disabled "
                                + "({} members)", head.flushId, head.subscriptionId, head.total);
                        rounds.count("dropped");
                        forget(windows.pollFirst());
                        continue;
                    }
                    if (!rounds.send(state, head, sub)) {
                        break;
                    }
                    forget(windows.pollFirst());
                }
                if (windows.isEmpty()) {
                    keys.remove();
                }
                if (System.nanoTime() - started > MAX_SEND_TIME_PER_LOOP.toNanos()) {
                    return; // poll again (max.poll.interval.ms); the rest goes at the next tick
                }
            }
        }
    }

    private void forget(DigestWindow w) {
        w.forgotten = true;
        listedBytes.addAndGet(-w.listedBytes);
    }

    private void drop(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            DigestPartition state = owned.remove(tp);
            if (state != null) {
                state.byKey.values().forEach(windows -> windows.forEach(this::forget));
            }
        }
    }

    /**
     * Whether an open window is to be sealed now: it is due, and its partition is read to the end (so what was
     * acked before the due time is in it), or the partition lags still {@value #DRAIN_TICKS} ticks after.
     */
    private boolean due(DigestPartition state, DigestWindow w, EventSubscription sub, Drained drained) {
        Instant now = clock.instant();
        Instant due = dueAt(state, w, sub);
        return !now.isBefore(due) && (!now.isBefore(due.plus(settings.tick().multipliedBy(DRAIN_TICKS)))
                || drained.get());
    }

    /**
     * Whether a partition is read to its end offset as of now (asked of the broker once per loop, only when a
     * window is due): then every entry acked before the due time is in its window.
     */
    private static final class Drained {
        private final KafkaConsumer<String, String> c;
        private final TopicPartition tp;
        private Boolean known;

        Drained(KafkaConsumer<String, String> c, TopicPartition tp) {
            this.c = c;
            this.tp = tp;
        }

        boolean get() {
            if (known == null) {
                known = c.position(tp) >= c.endOffsets(List.of(tp)).get(tp);
            }
            return known;
        }
    }

    private Instant dueAt(DigestPartition state, DigestWindow w, EventSubscription sub) {
        Optional<DigestPolicy> policy = sub == null ? Optional.empty() : policies.policyOf(sub);
        if (policy.isEmpty()) {
            return Instant.EPOCH; // deleted, disabled or back to real time: what was collected goes now
        }
        Instant first = Instant.ofEpochMilli(w.firstAt);
        if (policy.get().scheduled()) {
            return policy.get().nextTick(first);
        }
        Long last = state.lastMessage.get(w.key);
        boolean known = last != null && w.firstAt - last < policy.get().repeatInterval().toMillis();
        return known ? Instant.ofEpochMilli(Math.max(w.firstAt, last + policy.get().groupInterval().toMillis()))
                : first.plus(policy.get().groupWait());
    }

    /** More open windows than digest.maxWindows: the oldest are sealed (and sent) before they are due. */
    private void sealOverBudget() {
        int open = owned.values().stream().filter(s -> s.caughtUp).mapToInt(DigestPartition::openWindows).sum();
        while (open > settings.maxWindows()) {
            DigestWindow oldest = null;
            DigestPartition in = null;
            for (DigestPartition state : owned.values()) {
                for (Deque<DigestWindow> windows : state.byKey.values()) {
                    DigestWindow last = windows.peekLast();
                    if (state.caughtUp && last != null && !last.sealed()
                            && (oldest == null || last.firstAt < oldest.firstAt)) {
                        oldest = last;
                        in = state;
                    }
                }
            }
            if (oldest == null) {
                return;
            }
            seal(in, oldest);
            earlySeals.increment();
            open--;
        }
    }

    private void seal(DigestPartition state, DigestWindow w) {
        String flushId = "digest-" + UUID.nameUUIDFromBytes((w.subscriptionId + "/" + w.group + "/" + state.tp
                + "@" + w.firstOffset).getBytes(StandardCharsets.UTF_8));
        long now = clock.millis();
        rounds.write(state.tp, new DigestRecord(DigestRecord.SEALED, w.subscriptionId, w.group, null, null, null, null,
                flushId, w.lastOffset, w.total, null, null, now));
        w.flushId = flushId;
        w.sealedAt = now;
    }

    /** Commits what is sent before partitions go; takes assigned ones over ({@link #takeOver}). */
    private final class Listener implements ConsumerRebalanceListener {
        private final KafkaConsumer<String, String> c;

        Listener(KafkaConsumer<String, String> c) {
            this.c = c;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            awaitSends(partitions); // what the receivers answered is recorded, so the next owner does not send it
            try {
                commit(c, partitions);
            } catch (RuntimeException e) {
                LOG.warn("digest flusher: commit on revoke failed: {}", e.toString());
            }
            drop(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            drop(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            takeOver(c, partitions);
        }
    }

    /**
     * Takes partitions over: markers first (from the committed offset to the end), then the consumer is put back
     * to the committed offset to re-read the entries. A partition whose take-over fails stays without state (its
     * records are skipped, nothing is committed for it) and is taken over again at the next loop.
     */
    private void takeOver(KafkaConsumer<String, String> c, Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.copyOf(partitions));
            Map<TopicPartition, Long> ends = c.endOffsets(partitions);
            Map<TopicPartition, Long> beginnings = c.beginningOffsets(partitions);
            Map<String, Object> readerProps = new HashMap<>(consumerProps);
            readerProps.remove(ConsumerConfig.GROUP_ID_CONFIG);
            try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(readerProps, new StringDeserializer(),
                    new StringDeserializer())) {
                for (TopicPartition tp : partitions) {
                    OffsetAndMetadata at = committed.get(tp);
                    long from = at == null ? beginnings.get(tp) : Math.max(at.offset(), beginnings.get(tp));
                    long end = ends.get(tp);
                    DigestPartition state = new DigestPartition(tp, end, settings.topChanges(), settings.maxListedBytes(), listedBytes);
                    reader.assign(List.of(tp));
                    reader.seek(tp, from);
                    while (reader.position(tp) < end) {
                        for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
                            DigestRecord record = r.offset() < end ? read(r) : null;
                            if (record != null && !DigestRecord.ENTRY.equals(record.kind())) {
                                state.learn(record);
                            }
                        }
                    }
                    c.seek(tp, from);
                    owned.put(tp, state);
                    if (from < end) {
                        LOG.info("digest partition {} taken over: re-reading from offset {} to {}", tp, from, end);
                    } else {
                        LOG.debug("digest partition {} taken over: nothing to re-read", tp);
                    }
                }
            }
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.warn("digest flusher: taking {} over failed, retried at the next tick: {}", partitions,
                    e.toString());
        }
    }

    /** Waits (bounded by {@code digest.sendTimeout}) for the running sends of windows of {@code partitions}. */
    private void awaitSends(Collection<TopicPartition> partitions) {
        long deadline = System.nanoTime() + settings.sendTimeout().toNanos();
        while (sending(partitions) && System.nanoTime() < deadline) {
            rounds.applyFinished();
            LockSupport.parkNanos(10_000_000);
        }
        rounds.applyFinished();
    }

    private boolean sending(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            DigestPartition state = owned.get(tp);
            if (state != null && state.byKey.values().stream().flatMap(Deque::stream)
                    .anyMatch(w -> !w.inFlight.isEmpty())) {
                return true;
            }
        }
        return false;
    }

    /** Stops the thread (it commits what is sent), bounded by {@code timeout}. */
    public void close(Duration timeout) {
        stopping = true;
        KafkaConsumer<String, String> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            thread.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sender.close();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
