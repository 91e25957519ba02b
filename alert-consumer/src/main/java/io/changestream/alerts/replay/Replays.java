package io.changestream.alerts.replay;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.kafka.AdminClients;
import io.changestream.alerts.subscription.SubscriptionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replays of one instance: {@link #start} plans a replay (each source partition's range from the offsets of
 * {@code from} and {@code to}), commits the new group's offsets at the range's starts and starts its
 * {@link ReplayJob}; a timer reads each running replay's committed offsets every {@code replay.checkInterval} and
 * ends it when they reach the range's ends (or when its runtime stopped). At most {@code replay.maxRunning} run at
 * once; the status of the last {@code replay.maxKept} is kept. A replay runs on the instance that accepted it: when
 * that instance stops, the replay stops with it (its group keeps what it committed). Any thread.
 */
public final class Replays implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Replays.class);

    private final ReplaySettings settings;
    private final ReplayParts parts;
    /** Groups of the live service (its own, its retry path's): a replay may not take them. */
    private final Set<String> reserved;
    private final Admin admin;
    private final ScheduledExecutorService checker;
    /** By group, oldest first. Guarded by this. */
    private final LinkedHashMap<String, ReplayJob> jobs = new LinkedHashMap<>();
    private boolean closed;

    /**
     * @param reserved the live service's consumer groups, which a replay may not take
     */
    public Replays(ReplaySettings settings, ReplayParts parts, Set<String> reserved) {
        this.settings = settings;
        this.parts = parts;
        this.reserved = Set.copyOf(reserved);
        this.admin = AdminClients.create(parts.kafka(), "changestream-replays");
        this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cs-replays-check");
            t.setDaemon(true);
            return t;
        });
        long every = settings.checkInterval().toMillis();
        checker.scheduleWithFixedDelay(this::checkAll, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts {@code request}: 400 for a group of the live service or a subscription the view does not have, 409 for
     * a group that exists (a replay takes a new one: its deliveries are once per group), 429 when
     * {@code replay.maxRunning} run. The new replay's status.
     */
    public synchronized ObjectNode start(ReplayRequest request) {
        if (closed) {
            throw new SubscriptionException(503, "the service is stopping");
        }
        if (reserved.contains(request.group())) {
            throw SubscriptionException.invalid("group", "is a consumer group of the live service; a replay takes "
                    + "a new group");
        }
        if (jobs.containsKey(request.group())) {
            throw new SubscriptionException(409, "group: replay " + request.group() + " exists; a replay takes a "
                    + "new group");
        }
        long running = jobs.values().stream().filter(j -> j.state() == ReplayJob.State.RUNNING).count();
        if (running >= settings.maxRunning()) {
            throw new SubscriptionException(429, running + " replays run on this instance (replay.maxRunning)");
        }
        Set<String> known = parts.subscriptions().get().stream().map(s -> s.subscription().id())
                .collect(Collectors.toSet());
        for (int i = 0; i < request.subscriptions().size(); i++) {
            if (!known.contains(request.subscriptions().get(i))) {
                throw SubscriptionException.invalid("subscriptions[" + i + "]", "no subscription with id "
                        + request.subscriptions().get(i));
            }
        }
        ReplayJob job = ReplayJob.start(request, plan(request), parts);
        jobs.put(request.group(), job);
        forgetOldest();
        return job.toJson();
    }

    /** The status of the replay of {@code group}, if this instance runs it or kept it. */
    public synchronized Optional<ObjectNode> status(String group) {
        ReplayJob job = jobs.get(group);
        return job == null ? Optional.empty() : Optional.of(job.toJson());
    }

    /** Every replay's status this instance holds, oldest first. */
    public synchronized List<ObjectNode> list() {
        return jobs.values().stream().map(ReplayJob::toJson).toList();
    }

    /** Stops the replay of {@code group} (what runs is drained and committed); its status, if this instance has it. */
    public Optional<ObjectNode> stop(String group) {
        ReplayJob job;
        synchronized (this) {
            job = jobs.get(group);
        }
        if (job == null) {
            return Optional.empty();
        }
        job.finish(ReplayJob.State.STOPPED, "stopped through the admin API");
        return Optional.of(job.toJson());
    }

    /** Each source partition's range, and the new group's offsets committed at the range's starts. */
    private List<ReplayJob.Range> plan(ReplayRequest request) {
        try {
            long timeout = parts.adminTimeout().toMillis();
            Map<TopicPartition, OffsetAndMetadata> existing = admin.listConsumerGroupOffsets(request.group())
                    .partitionsToOffsetAndMetadata().get(timeout, TimeUnit.MILLISECONDS);
            if (!existing.isEmpty()) {
                throw new SubscriptionException(409, "group: consumer group " + request.group() + " already has "
                        + "committed offsets; a replay takes a new group");
            }
            Map<String, TopicDescription> topics = admin.describeTopics(parts.runtime().topics()).allTopicNames()
                    .get(timeout, TimeUnit.MILLISECONDS);
            List<TopicPartition> partitions = new ArrayList<>();
            topics.values().forEach(t -> t.partitions().forEach(p -> partitions.add(
                    new TopicPartition(t.name(), p.partition()))));
            Map<TopicPartition, Long> latest = offsets(partitions, OffsetSpec.latest(), timeout);
            Map<TopicPartition, Long> from = offsets(partitions, OffsetSpec.forTimestamp(request.from().toEpochMilli()),
                    timeout);
            Map<TopicPartition, Long> to = offsets(partitions, OffsetSpec.forTimestamp(request.to().toEpochMilli()),
                    timeout);
            List<ReplayJob.Range> ranges = new ArrayList<>();
            Map<TopicPartition, OffsetAndMetadata> starts = new HashMap<>();
            for (TopicPartition tp : partitions) {
                long start = from.get(tp) < 0 ? latest.get(tp) : from.get(tp); // -1: nothing written at or after it
                long stop = Math.max(start, to.get(tp) < 0 ? latest.get(tp) : to.get(tp));
                ranges.add(new ReplayJob.Range(tp, start, stop));
                starts.put(tp, new OffsetAndMetadata(start, "replay from " + request.from() + " to " + request.to()));
            }
            admin.alterConsumerGroupOffsets(request.group(), starts).all().get(timeout, TimeUnit.MILLISECONDS);
            return ranges;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubscriptionException(503, "interrupted while planning the replay", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SubscriptionException(503, "Kafka did not answer while planning the replay: " + e, e);
        }
    }

    private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec, long timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answers = admin.listOffsets(
                partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> spec))).all()
                .get(timeout, TimeUnit.MILLISECONDS);
        Map<TopicPartition, Long> out = new HashMap<>();
        answers.forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Reads each running replay's committed offsets; ends the ones that reached their ends or whose runtime died. */
    private void checkAll() {
        List<ReplayJob> running;
        synchronized (this) {
            running = jobs.values().stream().filter(j -> j.state() == ReplayJob.State.RUNNING).toList();
        }
        for (ReplayJob job : running) {
            try {
                Map<TopicPartition, Long> committed = new HashMap<>();
                admin.listConsumerGroupOffsets(job.group()).partitionsToOffsetAndMetadata()
                        .get(parts.adminTimeout().toMillis(), TimeUnit.MILLISECONDS)
                        .forEach((tp, o) -> committed.put(tp, o.offset()));
                if (job.progress(committed)) {
                    job.finish(ReplayJob.State.COMPLETED, null);
                } else if (!job.live()) {
                    job.finish(ReplayJob.State.FAILED, "its consumer runtime stopped");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                LOG.warn("reading the progress of replay {} failed; trying again in {}", job.group(),
                        settings.checkInterval(), e);
            }
        }
    }

    /** Drops the oldest finished replays beyond {@code replay.maxKept}. Holds this. */
    private void forgetOldest() {
        var finished = jobs.values().stream().filter(j -> j.state() != ReplayJob.State.RUNNING).toList();
        for (int i = 0; i < finished.size() - settings.maxKept(); i++) {
            jobs.remove(finished.get(i).group());
        }
    }

    /** Stops the timer and every running replay (drained and committed), then the admin client. Idempotent. */
    @Override
    public void close() {
        List<ReplayJob> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(jobs.values());
        }
        checker.shutdownNow();
        for (ReplayJob job : all) {
            job.finish(ReplayJob.State.STOPPED, "the service stopped");
        }
        admin.close(parts.adminTimeout());
    }
}
