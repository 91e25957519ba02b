package io.changestream.alerts.replay;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.pipeline.AlertProcessor;
import io.changestream.alerts.pipeline.DeliverySummary;
import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.CloseMode;
import io.changestream.runtime.ConsumerRuntime;
import io.changestream.runtime.Outcome;
import io.changestream.topics.serde.Json;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replay running: an {@link AlertProcessor} over a {@link ConsumerRuntime} of the replay's own consumer group,
 * whose committed offsets start at each source partition's first record of the range, with a ledger of that group
 * (so the range is delivered once for it, through crashes and rebalances of the instance, as the live group's
 * events are) and only the named subscriptions. Records at or past a partition's end of the range are passed over
 * undelivered; the replay is done when the group's committed offsets reach every end. Its meters are its own (not
 * scraped): its progress is its status.
 */
final class ReplayJob {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayJob.class);

    /** Where a replay is. */
    enum State { RUNNING, COMPLETED, FAILED, STOPPED }

    /** A source partition's part of the range: offsets {@code start} (inclusive) to {@code stop} (exclusive). */
    record Range(TopicPartition partition, long start, long stop) {
    }

    private final ReplayRequest request;
    private final List<Range> ranges;
    private final Map<TopicPartition, Long> stops;
    private final DeliverySummary summary;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final Instant startedAt;
    private final ReplayParts parts;
    private DeliveryLedger ledger;
    private AlertProcessor processor;
    private ConsumerRuntime<String, String> runtime;
    private volatile State state = State.RUNNING;
    private volatile Instant finishedAt;
    private volatile String error;
    private volatile Map<TopicPartition, Long> committed = Map.of();

    private ReplayJob(ReplayRequest request, List<Range> ranges, ReplayParts parts) {
        this.request = request;
        this.ranges = List.copyOf(ranges);
        this.stops = ranges.stream().collect(java.util.stream.Collectors.toUnmodifiableMap(Range::partition,
                Range::stop));
        this.parts = parts;
        this.summary = new DeliverySummary(parts.clock());
        this.startedAt = parts.clock().instant();
    }

    /** Builds and starts the replay of {@code ranges}, whose group's offsets are already committed at their starts. */
    static ReplayJob start(ReplayRequest request, List<Range> ranges, ReplayParts parts) {
        ReplayJob job = new ReplayJob(request, ranges, parts);
        try {
            job.startParts();
            return job;
        } catch (RuntimeException e) {
            job.closeParts(parts.runtime().closeTimeout());
            throw e;
        }
    }

    private void startParts() {
        Set<String> named = new HashSet<>(request.subscriptions());
        ledger = new DeliveryLedger(parts.ledger().forGroup(request.group()), parts.ledgerProducer(), parts.kafka(),
                meters, parts.clock());
        // digests and grouping are the live group's windows: a replay delivers each event on its own
        processor = new AlertProcessor(parts.pipeline(), () -> parts.subscriptions().get().stream()
                .filter(s -> named.contains(s.subscription().id())).toList(), parts.destinations(), ledger,
                parts.deadLetters(), summary, meters, parts.clock(), null);
        AsyncProcessor<String, String> inRange = event -> {
            Long stop = stops.get(new TopicPartition(event.topic(), event.partition()));
            return stop == null || event.offset() >= stop ? CompletableFuture.completedFuture(Outcome.success())
                    : processor.process(event);
        };
        runtime = ConsumerRuntime.asyncBuilder(parts.runtime().forGroup(request.group()), StringDeserializer::new,
                        StringDeserializer::new, inRange)
                .failureHandler(processor)
                .partitionListener(processor)
                .meterRegistry(meters)
                .clock(parts.clock())
                .threadPrefix("cs-replay-" + request.group())
                .build();
        runtime.start();
        LOG.info("replay {} started: subscriptions {}, from {} to {}, {} events in {} partitions", request.group(),
                request.subscriptions(), request.from(), request.to(), total(), ranges.size());
    }

    String group() {
        return request.group();
    }

    State state() {
        return state;
    }

    /** Takes the group's committed offsets just read; true when they reached the end of every partition's range. */
    boolean progress(Map<TopicPartition, Long> offsets) {
        committed = Map.copyOf(offsets);
        return ranges.stream().allMatch(r -> r.start() >= r.stop()
                || offsets.getOrDefault(r.partition(), r.start()) >= r.stop());
    }

    /** False once its runtime stopped running on its own (a consumer that could not be restarted). */
    boolean live() {
        return runtime == null || runtime.live();
    }

    /** Ends the replay in {@code end} (drains what runs, commits, leaves the group), once. */
    synchronized void finish(State end, String why) {
        if (state != State.RUNNING) {
            return;
        }
        error = why;
        closeParts(parts.runtime().closeTimeout());
        finishedAt = parts.clock().instant();
        state = end;
        LOG.info("replay {} {}{}: {} of {} events", request.group(), end.name().toLowerCase(java.util.Locale.ROOT),
                why == null ? "" : " (" + why + ")", done(), total());
    }

    private void closeParts(java.time.Duration timeout) {
        if (processor != null) {
            processor.stopWithin(timeout.dividedBy(2));
        }
        if (runtime != null) {
            runtime.close(CloseMode.DRAIN, timeout.dividedBy(2));
        }
        if (ledger != null) {
            ledger.close();
        }
        meters.close();
    }

    private long total() {
        return ranges.stream().mapToLong(r -> Math.max(0, r.stop() - r.start())).sum();
    }

    private long done() {
        Map<TopicPartition, Long> now = committed;
        return ranges.stream().mapToLong(r -> Math.max(0, Math.min(r.stop(), now.getOrDefault(r.partition(),
                r.start())) - r.start())).sum();
    }

    /**
     * The replay's status: {@code group, state, subscriptions, from, to, startedAt, finishedAt, error}, {@code events}
     * ({@code total} in the range, {@code done}: up to the group's committed offsets), per subscription the events
     * delivered and dead-lettered by the replay, and per partition {@code start, stop, committed}.
     */
    ObjectNode toJson() {
        ObjectNode out = Json.mapper().createObjectNode();
        out.put("group", request.group()).put("state", state.name());
        ArrayNode subscriptions = out.putArray("subscriptions");
        for (String id : request.subscriptions()) {
            DeliverySummary.View view = summary.of(id).orElse(null);
            subscriptions.addObject().put("id", id).put("deliveredEvents", view == null ? 0 : view.deliveredEvents())
                    .put("deadLettered", view == null ? 0 : view.deadLettered());
        }
        out.put("from", request.from().toString()).put("to", request.to().toString())
                .put("startedAt", startedAt.toString());
        Instant finished = finishedAt;
        out.put("finishedAt", finished == null ? null : finished.toString()).put("error", error);
        out.putObject("events").put("total", total()).put("done", done());
        ArrayNode partitions = out.putArray("partitions");
        Map<TopicPartition, Long> now = committed;
        for (Range r : ranges) {
            ObjectNode p = partitions.addObject().put("topic", r.partition().topic())
                    .put("partition", r.partition().partition()).put("start", r.start()).put("stop", r.stop());
            Long at = now.get(r.partition());
            if (at == null) {
                p.putNull("committed");
            } else {
                p.put("committed", at);
            }
        }
        return out;
    }
}
