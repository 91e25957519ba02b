package io.changestream.alerts.retry;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.pipeline.DeliverySummary;
import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.alerts.delivery.DestinationGroup;
import io.changestream.alerts.pipeline.LongRetries;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.kafka.AdminClients;
import io.changestream.alerts.subscription.DeliveryStatuses;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.runtime.RuntimeStatus;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartitionInfo;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry path of one alert service (decision 1120): the group-wide {@link DestinationStates}, the main path's
 * {@link RetryPath} ({@link #path()}, given to {@code AlertProcessor}), and the {@link RetryProcessor} on its own
 * {@link RetryLoop} over {@code alert-retry} (group {@code <group>-retry}, {@code retry.lanes} workers, at most
 * {@code retry.maxHeldPerDestination} records of one destination and {@code retry.maxHeld} in all in memory, the
 * rest read again from the topic). A publisher thread sends retry-path progress every
 * {@code retry.publishInterval} and samples the depth. Also the admin side: {@link #resume} and the status overlay
 * ({@link #statuses}). Meters: {@code changestream_alert_destinations_suspended},
 * {@code changestream_alert_retry_depth} (records on {@code alert-retry} the retry group has not committed past).
 */
public final class RetryService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetryService.class);
    private static final long DEPTH_EVERY_MILLIS = 2_000;

    private final RetrySettings settings;
    private final DestinationStates states;
    private final Admin probe;
    private final ScheduledExecutorService publisher;
    private final AtomicLong depth = new AtomicLong();
    private RetryPath path;
    private RetryLoop loop;
    private volatile long depthSampledAt;

    private RetryService(RetrySettings settings, DestinationStates states, Admin probe) {
        this.settings = settings;
        this.states = states;
        this.probe = probe;
        this.publisher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, settings.groupId() + "-retry-publisher");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Reads the destination states, builds the retry path and starts its consumer runtime.
     *
     * @param main          the main runtime's settings: kafka properties, timeouts and commit interval are reused
     * @param producer      the service's acks=all idempotent producer (owned by the caller)
     * @param subscriptions the current subscriptions (the retry path delivers with the subscription as it is now)
     * @param summary       this instance's delivery summary: a pair settled here counts in it
     */
    public static RetryService start(RetrySettings settings, RuntimeConfig main, Producer<String, String> producer,
                                     DestinationRegistry destinations, DeliveryLedger ledger,
                                     DeadLetterWriter deadLetters, Supplier<List<ActiveSubscription>> subscriptions,
                                     PipelineSettings pipeline, DeliverySummary summary, MeterRegistry meters,
                                     Clock clock) {
        Map<String, Object> kafka = new HashMap<>(main.kafka());
        kafka.put(ConsumerConfig.GROUP_ID_CONFIG, settings.retryGroupId());
        DestinationStates states = new DestinationStates(settings, producer, kafka,
                d -> RetryPath.partitionOf(d, producer.partitionsFor(settings.retryTopic()).size()), clock);
        RetryService service = new RetryService(settings, states, AdminClients.create(kafka, settings.groupId() + "-retry-probe"));
        try {
            states.start();
            service.path = new RetryPath(settings, producer, states, service.pendingAtStart(), meters, clock);
            RetryProcessor processor = new RetryProcessor(settings, states, destinations, ledger,
                    deadLetters, subscriptions, pipeline, summary, meters, clock);
            service.loop = new RetryLoop(settings, kafka, main.pollTimeout(), main.commitInterval(), processor, states,
                    meters, clock);
            AlertMeter.DESTINATIONS_SUSPENDED.gauge(states, s -> s.suspended().size())
                    .register(meters);
            AlertMeter.RETRY_DEPTH.gauge(service.depth, AtomicLong::get)
                    .register(meters);
            long every = settings.publishInterval().toMillis();
            service.publisher.scheduleWithFixedDelay(service::tick, every, every, TimeUnit.MILLISECONDS);
            service.loop.start();
            return service;
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
    }

    /** Per partition, the newest offset not settled by the retry group now (absent: all settled). */
    private Map<Integer, Long> pendingAtStart() {
        Map<Integer, Long> out = new HashMap<>();
        lag().forEach((tp, l) -> {
            if (l[1] > l[0]) {
                out.put(tp.partition(), l[1] - 1);
            }
        });
        return out;
    }

    /** Per partition of alert-retry: {committed (or earliest), end}. Publisher thread (or start). */
    private Map<TopicPartition, long[]> lag() {
        long timeout = settings.ackTimeout().toMillis();
        try {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            for (TopicPartitionInfo p : probe.describeTopics(List.of(settings.retryTopic())).allTopicNames()
                    .get(timeout, TimeUnit.MILLISECONDS).get(settings.retryTopic()).partitions()) {
                latest.put(new TopicPartition(settings.retryTopic(), p.partition()), OffsetSpec.latest());
                earliest.put(new TopicPartition(settings.retryTopic(), p.partition()), OffsetSpec.earliest());
            }
            var end = probe.listOffsets(latest).all().get(timeout, TimeUnit.MILLISECONDS);
            var start = probe.listOffsets(earliest).all().get(timeout, TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = probe.listConsumerGroupOffsets(
                    settings.retryGroupId()).partitionsToOffsetAndMetadata().get(timeout, TimeUnit.MILLISECONDS);
            Map<TopicPartition, long[]> out = new HashMap<>();
            for (TopicPartition tp : latest.keySet()) {
                OffsetAndMetadata c = committed.get(tp);
                out.put(tp, new long[] {c == null ? start.get(tp).offset() : c.offset(), end.get(tp).offset()});
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the retry path's depth", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("retry path depth not read: " + e, e);
        }
    }

    private void tick() {
        try {
            states.publish();
            long now = System.currentTimeMillis();
            if (now - depthSampledAt >= DEPTH_EVERY_MILLIS) {
                depthSampledAt = now;
                depth.set(lag().values().stream().mapToLong(l -> Math.max(0, l[1] - l[0])).sum());
            }
        } catch (RuntimeException e) {
            LOG.warn("retry path publisher: {}", e.toString());
        }
    }

    /** The main path's side, for {@code AlertProcessor#useLongRetries}. */
    public LongRetries path() {
        return path;
    }

    /** The retry runtime's status (partitions, parked keys), for {@code /api/v1/runtime/status}. */
    public RuntimeStatus runtimeStatus() {
        return loop.status();
    }

    /**
     * False once the retry path's consumer thread stopped for good, or its destination-state reader died and could
     * not be restarted (for {@code /health/live}).
     */
    public boolean live() {
        return loop.live() && states.alive();
    }

    /** Records on alert-retry not yet settled, as last sampled. */
    public long depth() {
        return depth.get();
    }

    /**
     * Resumes the subscription's destinations (all, or the one with id {@code destinationId}) group-wide: a
     * suspended one is delivered to again, and its parked and waiting pairs are tried now, in order. Returns the
     * destination ids resumed; acked when it returns.
     */
    public List<String> resume(EventSubscription subscription, String destinationId, String by) {
        List<String> resumed = new ArrayList<>();
        for (SubscriptionDestination d : subscription.destinations()) {
            if (destinationId != null && !destinationId.equals(d.id())) {
                continue;
            }
            states.resume(RetryPath.destinationKey(subscription, d), by);
            resumed.add(d.id());
        }
        LOG.info("subscription {}: destinations {} resumed by {}", subscription.id(), resumed, by);
        return resumed;
    }

    /** The status view with the retry path's state on top: suspended → disabled, backlogged → awaitingRetry. */
    public DeliveryStatuses statuses(DeliveryStatuses view) {
        return new RetryStatuses(view, this);
    }

    /** The suspension reason of a subscription's destination, or null. */
    String suspension(EventSubscription subscription, SubscriptionDestination destination) {
        return states.suspension(RetryPath.destinationKey(subscription, destination)).orElse(null);
    }

    /** Whether pairs of a subscription's destination wait in the retry path (group-wide, as published). */
    boolean backlogged(EventSubscription subscription, SubscriptionDestination destination) {
        return states.of(RetryPath.destinationKey(subscription, destination)).backlogged();
    }

    /** The destinations of a subscription with their send group's member ids (status is kept per member). */
    static Map<String, SubscriptionDestination> byMember(EventSubscription subscription) {
        Map<String, SubscriptionDestination> out = new HashMap<>();
        for (boolean run : new boolean[] {false, true}) {
            for (DestinationGroup g : DestinationGroup.of(subscription, run)) {
                g.memberIds().forEach(id -> out.put(id, g.destination()));
            }
        }
        return out;
    }

    @Override
    public void close() {
        close(settings.stateCatchUp());
    }

    /**
     * Stops the retry consumer within {@code timeout}: its running tries get until then, the rest are cancelled
     * (their records stay on {@code alert-retry} for the next owner); then the destination states go out.
     */
    public void close(Duration timeout) {
        if (loop != null) {
            loop.close(timeout);
        }
        publisher.shutdown();
        try {
            publisher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        states.publish();
        states.close();
        probe.close(Duration.ofSeconds(2));
    }
}
