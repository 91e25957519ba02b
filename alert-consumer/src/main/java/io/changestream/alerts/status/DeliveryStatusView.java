package io.changestream.alerts.status;

import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.subscription.DeliveryStatuses;
import io.changestream.alerts.subscription.DestinationStatus;
import io.changestream.alerts.view.ViewReader;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.JsonSerde;
import io.changestream.topics.serde.LedgerCodec;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group-wide, durable delivery status, a read-only view of {@code alert-ledger} and {@code alert-dlq}: one
 * {@link ViewReader} (a plain consumer without a group, every partition assigned, read from the beginning — decisions
 * 1351, 2702) folds the records into counts per (subscription, destination), so every instance of a group answers
 * the same numbers, also after a restart. What counts, per destination:
 * <ul>
 *   <li>{@code delivered}: unique notifications whose pair the ledger settled {@code DELIVERED} (this group's
 *       records only; a pair record covers every destination of the subscription), less those skipped for this
 *       destination: only requests a receiver accepted;</li>
 *   <li>{@code skipped}: unique notifications of such pairs whose group record for this destination's send group
 *       says {@code SKIPPED}: settled without sending, nothing to send (a run state outside a lineage destination's
 *       {@code statuses}, roles that select no receiver); a skip waits for its pair's record, and at most
 *       {@code status.dedupeEntries} such pairs wait at once;</li>
 *   <li>{@code deadLettered}: unique notifications on {@code alert-dlq} for this destination's send group, or for
 *       the whole subscription (a filter failure);</li>
 *   <li>{@code failed}: unique notifications that failed at least once — delivered after a retry (ledger
 *       {@code attempts > 1}) or dead-lettered;</li>
 *   <li>{@code status}: {@code disabled} when the subscription or destination is, else by the latest of the last
 *       success and the last failure: {@code active}, or {@code retryLimitReached} / {@code failed} for a dead
 *       letter with / without its retries exhausted. {@code awaitingRetry} is not durable (the retry in flight is
 *       one instance's) and is not reported here; {@code nextAttempt} stays null.</li>
 * </ul>
 * A record written twice (a retried ack, a replay) counts once while its key is among the last
 * {@code status.dedupeEntries} seen; at most {@code status.maxEntries} (subscription, destination) entries are
 * kept. {@link #current} waits (bounded by {@code status.catchUp}) until the reader has passed the topics' end
 * offsets as of the call, so an answer includes every settlement acknowledged before the request. A reader that
 * fails (a Kafka timeout, a lost broker) is restarted ({@code status.restartBackoff}, {@code status.restartMaxBackoff})
 * with a new consumer that resumes where it stood; after {@code status.maxRestarts} failures in a row it is given up
 * and {@link #alive()} is false ({@code /health/live}). Thread-safe.
 */
public final class DeliveryStatusView implements DeliveryStatuses, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryStatusView.class);
    private static final Duration POLL = Duration.ofMillis(100);
    /** The key dead letters without a destination (filter failures: every destination) are kept under. */
    private static final String WHOLE_SUBSCRIPTION = "*";

    private static final class Subscription {
        long delivered;
        long retried;
        Long lastSuccessfulAt;
        final Map<String, DeadLetters> byGroup = new HashMap<>();
        /** Skipped notifications by send group (its first member's id). */
        final Map<String, Long> skippedByGroup = new HashMap<>();
    }

    private static final class DeadLetters {
        long count;
        long lastAt;
        String lastReason;
        boolean exhausted;
    }

    private final StatusSettings settings;
    private final ViewReader<String, byte[]> reader;
    /** The ledger writer of this instance, whose batches are counted from their acks ({@link #applyOwn}). */
    private volatile String ownWriter;
    private final JsonSerde<FailedEvent> dlqSerde = Serdes.failedEvent();
    private final Map<String, Subscription> subscriptions = new HashMap<>();
    private final LinkedHashMap<String, Boolean> seen;
    /** SKIPPED group records (pair key → group keys) waiting for their pair's DELIVERED record. */
    private final LinkedHashMap<String, Set<String>> pendingSkips;
    private final Object lock = new Object();
    private int entries;
    private boolean full;
    private long skipped;
    private volatile boolean closed;

    private DeliveryStatusView(StatusSettings settings, Map<String, Object> kafka) {
        this.settings = settings;
        this.reader = ViewReader.builder("status view reader of " + settings.ledgerTopic() + " and "
                        + settings.dlqTopic(), kafka, StringDeserializer::new, ByteArrayDeserializer::new)
                .topics(List.of(settings.ledgerTopic(), settings.dlqTopic()))
                .handler(this::fold)
                .property(ConsumerConfig.CLIENT_ID_CONFIG, settings.groupId() + "-status")
                .property(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .property(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false) // a read-only view creates no topic
                .threadName(settings.groupId() + "-status-view")
                .pollTimeout(POLL)
                .openTimeout(Duration.ofSeconds(30))
                .restarts(settings.restartBackoff(), settings.restartMaxBackoff(), settings.maxRestarts())
                .start(ViewReader.Start.OPEN_FIRST) // start fails when a topic does not exist
                .build();
        int dedupe = settings.dedupeEntries();
        this.seen = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > dedupe;
            }
        };
        this.pendingSkips = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Set<String>> eldest) {
                return size() > dedupe;
            }
        };
    }

    /**
     * Starts the reader over every partition of both topics, from the beginning.
     *
     * @param kafka client properties ({@code bootstrap.servers}, security); a {@code group.id} is ignored
     */
    public static DeliveryStatusView start(StatusSettings settings, Map<String, Object> kafka) {
        DeliveryStatusView view = new DeliveryStatusView(Objects.requireNonNull(settings, "settings"), kafka);
        try {
            view.reader.start();
        } catch (RuntimeException e) {
            view.close();
            throw e;
        }
        return view;
    }

    /** False once the reader could not be restarted ({@code status.maxRestarts}): {@code /health/live}. */
    public boolean alive() {
        return reader.alive();
    }

    /** Why not alive, for {@code /health/live}; null while alive. */
    public String health() {
        return reader.health();
    }

    /** How many times a dead reader was restarted. */
    public long readerRestarts() {
        return reader.restarts();
    }

    /**
     * Counts this instance's own ledger writes as they are acked, instead of reading them back: the view then
     * skips the batches of {@code writer} on the topic. Call before the first write of that writer.
     */
    public void countOwnWrites(String writer) {
        this.ownWriter = writer;
    }

    /** The records of one batch of this instance's writer, acked (see {@link #countOwnWrites}). */
    public void applyOwn(List<DeliveryRecord> records) {
        records.forEach(this::foldLedger);
    }

    /** Reads the value's bytes as they came; a batch of this instance's own writer was counted at its ack. */
    private void fold(ConsumerRecord<String, byte[]> r) {
        if (r.value() == null) {
            return;
        }
        try {
            if (r.topic().equals(settings.ledgerTopic())) {
                if (LedgerCodec.isBatch(r.value()) && ownWriter != null
                        && ownWriter.equals(LedgerCodec.writerOf(r.topic(), r.value()))) {
                    return;
                }
                LedgerCodec.decode(r.topic(), r.value()).records().forEach(this::foldLedger);
            } else {
                foldDeadLetter(dlqSerde.deserialize(r.topic(), r.value()));
            }
        } catch (RuntimeException e) {
            synchronized (lock) {
                skipped++;
            }
            LOG.debug("status view skips an unreadable record at {}-{}@{}: {}", r.topic(), r.partition(), r.offset(),
                    e.toString());
        }
    }

    private void foldLedger(DeliveryRecord r) {
        if (LedgerRecords.isReset(r) || !settings.groupId().equals(r.groupId())) {
            return; // reset markers, other groups
        }
        if (r.destinationId() != null) { // group progress: only a skip counts, once its pair is settled
            if (DeliveryRecord.SKIPPED.equals(r.status())) {
                synchronized (lock) {
                    pendingSkips.computeIfAbsent(r.key(), k -> new TreeSet<>()).add(r.destinationId());
                }
            }
            return;
        }
        if (!DeliveryRecord.DELIVERED.equals(r.status())) {
            if (DeliveryRecord.DEAD_LETTERED.equals(r.status())) {
                synchronized (lock) {
                    pendingSkips.remove(r.key()); // counted by the DLQ, not here
                }
            }
            return; // filtered-out, dead-lettered (the DLQ) and handed-off pairs (settled later by the retry path)
        }
        synchronized (lock) {
            Set<String> skippedGroups = pendingSkips.remove(r.key());
            if (seen.put(r.key(), Boolean.TRUE) != null) {
                return;
            }
            Subscription s = subscription(r.subscriptionId());
            if (s == null) {
                return;
            }
            if (skippedGroups != null) {
                // a group key is "<TYPE>:<first member id>"; status is kept under the first member's id
                skippedGroups.forEach(g -> s.skippedByGroup.merge(g.substring(g.indexOf(':') + 1), 1L, Long::sum));
            }
            s.delivered++;
            if (r.attempts() > 1) {
                s.retried++;
            }
            s.lastSuccessfulAt = s.lastSuccessfulAt == null ? r.deliveredAt()
                    : Math.max(s.lastSuccessfulAt, r.deliveredAt());
        }
    }

    private void foldDeadLetter(FailedEvent f) {
        String group = f.destinationId() == null ? WHOLE_SUBSCRIPTION : f.destinationId();
        synchronized (lock) {
            if (seen.put("dlq|" + f.key() + "|" + group, Boolean.TRUE) != null) {
                return;
            }
            Subscription s = subscription(f.subscriptionId());
            if (s == null) {
                return;
            }
            DeadLetters d = s.byGroup.get(group);
            if (d == null) {
                if (!room()) {
                    return;
                }
                d = new DeadLetters();
                s.byGroup.put(group, d);
            }
            d.count++;
            if (f.timestamp() >= d.lastAt) {
                d.lastAt = f.timestamp();
                d.lastReason = f.reason(); // shown through DestinationStatus, which redacts it (older records too)
                d.exhausted = f.source() == FailureSource.SUBSCRIBER && f.retriesLeft() == 0 && f.attempts() > 1;
            }
        }
    }

    /** The entry of a subscription, made when there is room; null when {@code status.maxEntries} is reached. */
    private Subscription subscription(String id) {
        Subscription s = subscriptions.get(id);
        if (s == null && room()) {
            s = new Subscription();
            subscriptions.put(id, s);
        }
        return s;
    }

    private boolean room() {
        if (entries >= settings.maxEntries()) {
            if (!full) {
                full = true;
                LOG.warn("status view holds status.maxEntries={} entries; new subscriptions and destinations are not"
                        + " tracked", settings.maxEntries());
            }
            return false;
        }
        entries++;
        return true;
    }

    @Override
    public boolean current() {
        return !closed && reader.running() && reader.awaitCurrent(settings.catchUp());
    }

    @Override
    public List<DestinationStatus> statuses(EventSubscription subscription) {
        Map<String, String> sendGroupOf = new HashMap<>();
        for (boolean runStatus : new boolean[] {false, true}) {
            for (DestinationGroup g : DestinationGroup.of(subscription, runStatus)) {
                g.memberIds().forEach(id -> sendGroupOf.put(id, g.memberIds().get(0)));
            }
        }
        List<DestinationStatus> out = new ArrayList<>();
        synchronized (lock) {
            Subscription s = subscriptions.get(subscription.id());
            List<SubscriptionDestination> destinations = subscription.destinations();
            for (int i = 0; i < destinations.size(); i++) {
                SubscriptionDestination d = destinations.get(i);
                String memberId = d.id() != null ? d.id() : d.type().name() + "#" + i;
                String type = Json.mapper().convertValue(d.type(), String.class);
                boolean disabled = !subscription.enabled() || !d.enabled();
                out.add(status(s, d.id(), type, disabled, sendGroupOf.getOrDefault(memberId, memberId)));
            }
        }
        return out;
    }

    private static DestinationStatus status(Subscription s, String id, String type, boolean disabled,
                                            String sendGroup) {
        if (s == null) {
            return new DestinationStatus(id, type, disabled ? "disabled" : "active", 0, 0, 0, null, null, null, null);
        }
        long deadLettered = 0;
        DeadLetters last = null;
        for (String key : List.of(sendGroup, WHOLE_SUBSCRIPTION)) { // the DLQ names a send group's first member
            DeadLetters d = s.byGroup.get(key);
            if (d != null) {
                deadLettered += d.count;
                if (last == null || d.lastAt > last.lastAt) {
                    last = d;
                }
            }
        }
        long skipped = s.skippedByGroup.getOrDefault(sendGroup, 0L);
        String state;
        if (disabled) {
            state = "disabled";
        } else if (last != null && (s.lastSuccessfulAt == null || last.lastAt > s.lastSuccessfulAt)) {
            state = last.exhausted ? "retryLimitReached" : "failed";
        } else {
            state = "active";
        }
        return new DestinationStatus(id, type, state, s.delivered - skipped, s.retried + deadLettered, deadLettered,
                s.lastSuccessfulAt, last == null ? null : last.lastAt, last == null ? null : last.lastReason, null,
                skipped);
    }

    @Override
    public void forget(String subscriptionId) {
        synchronized (lock) {
            Subscription s = subscriptions.remove(subscriptionId);
            if (s != null) {
                entries -= 1 + s.byGroup.size();
                full = false;
            }
        }
    }

    /** Records the reader could not read (malformed JSON), for the tests and the logs. */
    public long skipped() {
        synchronized (lock) {
            return skipped;
        }
    }

    /** Stops the reader (bounded, 10 s) and its restarts; idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        reader.close();
    }
}
