package io.changestream.alerts.subscription;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.filter.FilterException;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.filter.SubscriptionFilter;
import io.changestream.alerts.view.ViewReader;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.serde.JsonSerde;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriptions of the service, stored in the compacted {@code subscriptions} topic (key = id, tombstone =
 * delete) and read back into an in-memory, read-only view by one {@link ViewReader} (no consumer group: every
 * partition assigned), so every instance sees every change within about one poll
 * ({@link SubscriptionStoreSettings#pollTimeout()}). After it has read to the end once, the reader asks the broker for
 * the end offsets about every quarter of {@code subscriptions.staleAfter} and the view is fresh when it holds them —
 * so a reader cut off from the broker leaves the view ageing rather than looking current. A reader that dies is
 * restarted with backoff and resumes where the view stands (one that dies before the first catch-up fails
 * {@link #start} instead); {@link #healthy()} (readiness) is false while the view is stale, {@link #alive()}
 * (liveness) false once the reader is given up, and {@link SubscriptionViewGate} pauses processing while the view is
 * older than {@code subscriptions.maxStaleness}.
 *
 * <p>Reads ({@link #get}, {@link #byName}, {@link #list}) are lock-free and may be called from any thread (the
 * runtime's processors). Writes are called by the REST threads; each waits for the broker's ack and then until the
 * view has applied it (read-your-writes). Names are unique: a name belongs to the live record with the lowest
 * offset, so when two instances create the same name at once the later one finds it lost, deletes its record and
 * answers 409.
 */
public final class SubscriptionStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SubscriptionStore.class);

    private final SubscriptionStoreSettings settings;
    private final FilterSettings filterSettings;
    private final JsonSerde<EventSubscription> serde = Serdes.eventSubscription();
    private final KafkaProducer<String, String> producer;
    private final ViewProgress progress;
    private final ViewReader<String, String> reader;
    private volatile boolean closed;
    private final Map<String, ActiveSubscription> byId = new ConcurrentHashMap<>();
    private final Map<String, String> nameOwner = new ConcurrentHashMap<>();
    private final Map<String, String> destinationOwner = new ConcurrentHashMap<>();
    private final List<Consumer<SubscriptionChange>> listeners = new CopyOnWriteArrayList<>();
    private volatile Counter malformed;

    private SubscriptionStore(SubscriptionStoreSettings settings, FilterSettings filterSettings, Clock clock) {
        this.settings = settings;
        this.filterSettings = filterSettings;
        this.progress = new ViewProgress(clock);
        Map<String, Object> producerProps = new HashMap<>(settings.kafka());
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) settings.writeTimeout().toMillis());
        producerProps.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) settings.writeTimeout().toMillis());
        producerProps.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, settings.writeTimeout().toMillis());
        this.producer = new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer());
        SubscriptionStoreSettings.ReaderHealth health = settings.health();
        this.reader = ViewReader.builder("subscriptions reader of " + settings.topic(), settings.kafka(),
                        StringDeserializer::new, StringDeserializer::new)
                .topics(List.of(settings.topic()))
                .property(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false)
                .handler(new ViewReader.Handler<>() {
                    @Override
                    public void apply(ConsumerRecord<String, String> r) {
                        applyRecord(r.key(), r.value(), r.offset());
                    }

                    @Override
                    public void atEnd() {
                        progress.markFresh();
                    }
                })
                .threadName("subscriptions-reader")
                .pollTimeout(settings.pollTimeout())
                .openTimeout(settings.startupTimeout())
                .confirmEvery(Duration.ofMillis(Math.max(1, health.staleAfter().toMillis() / 4)))
                // restarted after restartBackoff, doubled up to restartMaxBackoff; given up after maxRestarts
                // consecutive failures (alive() false); one that dies before the first catch-up fails start
                .restarts(health.restartBackoff(), health.restartMaxBackoff(), health.maxRestarts())
                .start(ViewReader.Start.FAIL_UNTIL_CAUGHT_UP)
                .clock(clock)
                .closeTimeout(settings.closeTimeout())
                .build();
    }

    /**
     * Starts the reader and waits until the view holds everything the topic held at start.
     *
     * @throws SubscriptionException 503 when the topic cannot be read to its end within the startup timeout
     */
    public static SubscriptionStore start(SubscriptionStoreSettings settings, FilterSettings filterSettings) {
        return start(settings, filterSettings, Clock.systemUTC());
    }

    /** {@link #start(SubscriptionStoreSettings, FilterSettings)} with the clock that judges the view's age. */
    public static SubscriptionStore start(SubscriptionStoreSettings settings, FilterSettings filterSettings,
                                          Clock clock) {
        SubscriptionStore store = new SubscriptionStore(Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(filterSettings, "filterSettings"), Objects.requireNonNull(clock, "clock"));
        try {
            store.reader.start();
            store.awaitCaughtUp(settings.startupTimeout());
            return store;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private void awaitCaughtUp(Duration timeout) {
        boolean caughtUp;
        try {
            caughtUp = reader.awaitCaughtUp(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException(503, "interrupted while reading " + settings.topic(), e);
        } catch (IllegalStateException e) {
            Throwable failure = e.getCause();
            throw new SubscriptionException(503, "cannot read " + settings.topic() + ": " + failure.getMessage(),
                    failure);
        }
        if (!caughtUp) {
            throw new SubscriptionException(503, "did not read " + settings.topic() + " to its end within "
                    + timeout.toMillis() + " ms (subscriptions.startupTimeout)");
        }
    }

    /**
     * True while the view is current: its reader runs and confirmed at most {@code subscriptions.staleAfter} ago
     * that it holds the whole topic (wire it into {@code /health/ready}).
     */
    public boolean healthy() {
        return !closed && reader.running() && progress.everFresh()
                && progress.age().compareTo(settings.health().staleAfter()) <= 0;
    }

    /** False once a dead reader could not be restarted ({@code subscriptions.maxRestarts}): {@code /health/live}. */
    public boolean alive() {
        return reader.alive();
    }

    /** Time since the view was last confirmed to hold the whole topic. */
    public Duration viewAge() {
        return progress.age();
    }

    /** How many times a dead reader was restarted. */
    public long readerRestarts() {
        return reader.restarts();
    }

    /** Why not healthy, for {@code /health/ready}. */
    public String health() {
        if (!reader.alive()) {
            return reader.health();
        }
        if (!reader.running()) {
            return "subscriptions reader restarting";
        }
        return "subscriptions view " + viewAge().toMillis() + " ms old (stale after "
                + settings.health().staleAfter().toMillis() + " ms, subscriptions.staleAfter)";
    }

    /** Test hook: the current reader thread dies of {@code failure}. */
    void killReader(Throwable failure) {
        reader.kill(failure);
    }

    /** Registers the store's meters: {@code changestream_subscriptions} and {@code ..._malformed_total}. */
    public void bindTo(MeterRegistry meters) {
        AlertMeter.SUBSCRIPTIONS.gauge(byId, Map::size).register(meters);
        AlertMeter.SUBSCRIPTIONS_VIEW_AGE.gauge(this, s -> s.viewAge().toMillis() / 1000.0)
                .baseUnit("seconds").register(meters);
        AlertMeter.SUBSCRIPTIONS_READER_RESTARTS.functionCounter(this,
                        s -> s.readerRestarts()).register(meters);
        malformed = AlertMeter.SUBSCRIPTIONS_MALFORMED.counter()
                .register(meters);
    }

    /** Tells the listener every change the view applies (on the reader thread; it must not block). */
    public void addListener(Consumer<SubscriptionChange> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** The subscription with this id. */
    public Optional<ActiveSubscription> get(String id) {
        return Optional.ofNullable(id == null ? null : byId.get(id));
    }

    /** The subscription with this name. */
    public Optional<ActiveSubscription> byName(String name) {
        String id = name == null ? null : nameOwner.get(name);
        return Optional.ofNullable(id == null ? null : byId.get(id));
    }

    /** The id of the subscription that has a destination with this id, or null (issue 21: ids are unique). */
    public String destinationOwner(String destinationId) {
        return destinationId == null ? null : destinationOwner.get(destinationId);
    }

    /** How many subscriptions the view holds. */
    public int size() {
        return byId.size();
    }

    /** Every subscription, by name. */
    public List<ActiveSubscription> list() {
        return byId.values().stream()
                .sorted(Comparator.comparing((ActiveSubscription a) -> a.subscription().name())
                        .thenComparingLong(ActiveSubscription::offset))
                .toList();
    }

    /**
     * Stores a new subscription.
     *
     * @throws SubscriptionException 409 when the name is taken
     */
    public EventSubscription create(EventSubscription subscription) {
        if (byName(subscription.name()).isPresent() || byId.containsKey(subscription.id())) {
            throw SubscriptionException.duplicateName(subscription.name());
        }
        write(subscription.id(), serde.toJson(subscription));
        String owner = nameOwner.get(subscription.name());
        if (!subscription.id().equals(owner)) {
            write(subscription.id(), null);
            throw SubscriptionException.duplicateName(subscription.name());
        }
        return subscription;
    }

    /**
     * Replaces a stored subscription (same id).
     *
     * @throws SubscriptionException 404 when unknown, 409 when the new name belongs to another subscription
     */
    public EventSubscription update(EventSubscription subscription) {
        if (!byId.containsKey(subscription.id())) {
            throw SubscriptionException.notFound(subscription.id());
        }
        Optional<ActiveSubscription> other = byName(subscription.name());
        if (other.isPresent() && !other.get().id().equals(subscription.id())) {
            throw SubscriptionException.duplicateName(subscription.name());
        }
        write(subscription.id(), serde.toJson(subscription));
        return subscription;
    }

    /**
     * Deletes a subscription (writes a tombstone).
     *
     * @throws SubscriptionException 404 when unknown
     */
    public EventSubscription delete(String id) {
        ActiveSubscription existing = get(id).orElseThrow(() -> SubscriptionException.notFound(id));
        write(id, null);
        return existing.subscription();
    }

    private void write(String id, String json) {
        RecordMetadata ack;
        try {
            ack = producer.send(new ProducerRecord<>(settings.topic(), id, json))
                    .get(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException(503, "interrupted while writing subscription " + id, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RecordTooLargeException) {
                throw new SubscriptionException(413, "body: the subscription is " + (json == null ? 0 : json.length())
                        + " characters, too large for a record of " + settings.topic() + " (lower "
                        + "admin.maxRequestBytes or raise the topic's max.message.bytes)", e);
            }
            throw new SubscriptionException(503, "could not write subscription " + id + " to " + settings.topic()
                    + ": " + e.getCause(), e);
        } catch (TimeoutException e) {
            throw new SubscriptionException(503, "could not write subscription " + id + " to " + settings.topic()
                    + ": " + (e.getCause() == null ? e : e.getCause()), e);
        }
        if (!reader.awaitApplied(new TopicPartition(ack.topic(), ack.partition()), ack.offset(),
                settings.writeTimeout())) {
            throw new SubscriptionException(503, "subscription " + id + " was written but not read back within "
                    + settings.writeTimeout().toMillis() + " ms (subscriptions.writeTimeout)");
        }
    }

    /** Applies one record of the topic to the view; reader thread only. */
    private void applyRecord(String id, String json, long offset) {
        if (id == null) {
            countMalformed("a record without key at offset " + offset);
            return;
        }
        ActiveSubscription previous = byId.get(id);
        if (json == null) {
            if (previous != null) {
                byId.remove(id);
                releaseName(previous);
                releaseDestinations(previous.subscription());
                tell(new SubscriptionChange(id, null, previous));
            }
            return;
        }
        EventSubscription subscription;
        try {
            subscription = serde.fromJson(json);
        } catch (RuntimeException e) {
            countMalformed("record " + id + " at offset " + offset + ": " + e.getMessage());
            return;
        }
        if (!id.equals(subscription.id())) {
            countMalformed("record key " + id + " differs from its id " + subscription.id());
            return;
        }
        ActiveSubscription current;
        try {
            current = new ActiveSubscription(subscription, SubscriptionFilter.compile(subscription, filterSettings),
                    null, offset);
        } catch (FilterException e) {
            LOG.warn("subscription {} ({}) has rules that do not compile: {}", subscription.name(), id,
                    e.getMessage());
            current = new ActiveSubscription(subscription, null, e.getMessage(), offset);
        }
        byId.put(id, current);
        if (previous != null && !previous.subscription().name().equals(subscription.name())) {
            releaseName(previous);
        }
        if (previous != null) {
            releaseDestinations(previous.subscription());
        }
        subscription.destinations().forEach(d -> {
            if (d.id() != null) {
                destinationOwner.putIfAbsent(d.id(), id); // a duplicate from before issue 21 stays its first owner's
            }
        });
        nameOwner.putIfAbsent(subscription.name(), id);
        tell(new SubscriptionChange(id, current, previous));
    }

    private void releaseDestinations(EventSubscription previous) {
        previous.destinations().forEach(d -> {
            if (d.id() != null) {
                destinationOwner.remove(d.id(), previous.id());
            }
        });
    }

    private void releaseName(ActiveSubscription previous) {
        String name = previous.subscription().name();
        if (!previous.id().equals(nameOwner.get(name))) {
            return;
        }
        nameOwner.remove(name);
        byId.values().stream()
                .filter(a -> a.subscription().name().equals(name))
                .min(Comparator.comparingLong(ActiveSubscription::offset))
                .ifPresent(next -> nameOwner.put(name, next.id()));
    }

    private void tell(SubscriptionChange change) {
        for (Consumer<SubscriptionChange> listener : listeners) {
            try {
                listener.accept(change);
            } catch (RuntimeException e) {
                LOG.warn("subscription listener failed on {}", change.id(), e);
            }
        }
    }

    private void countMalformed(String what) {
        LOG.warn("skipping malformed subscriptions record: {}", what);
        Counter counter = malformed;
        if (counter != null) {
            counter.increment();
        }
    }

    /** Stops the reader (bounded by {@code closeTimeout}) and closes the producer; idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            reader.close(); // and no restart starts a reader after this
        } finally {
            producer.close(settings.closeTimeout());
        }
    }

    /** For tests: how long writes wait. */
    Duration writeTimeout() {
        return settings.writeTimeout();
    }
}
