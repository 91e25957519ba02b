package io.changestream.alerts.startpoint;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.kafka.AdminClients;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Resolves a new subscription's {@link StartingPoint} against the source topics, as the platform starts a new
 * subscription at the latest offset: without a request field, the log end of every source partition now (events
 * already on the topics — also those the group has not read yet — are not delivered to it); with
 * {@code startingOffset} (an offset for every partition, an object of {@code "topic-partition": offset}, or
 * {@code "earliest"}/{@code "latest"}) or {@code startingTimestamp} (epoch ms or ISO-8601: per partition the first
 * offset whose record time is at or after it) from there. An invalid field is a {@link StartingPointException} naming
 * it. Owns one Kafka admin client; any thread (the REST threads).
 */
public final class StartingPoints implements AutoCloseable {

    /** The request field of an offset. */
    public static final String STARTING_OFFSET = "startingOffset";
    /** The request field of a time. */
    public static final String STARTING_TIMESTAMP = "startingTimestamp";

    private final Admin admin;
    private final List<String> topics;
    private final Duration timeout;
    private final Clock clock;

    /**
     * @param kafka   Kafka client properties (bootstrap servers, security)
     * @param topics  the source topics the subscriptions' events come from
     * @param timeout bound of one resolution's broker calls
     */
    public StartingPoints(Map<String, Object> kafka, List<String> topics, Duration timeout, Clock clock) {
        this.admin = AdminClients.create(kafka, "changestream-starting-points");
        this.topics = List.copyOf(topics);
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The request fields that carry a starting point: never stored as given (the resolved point is). */
    public static List<String> requestFields() {
        return List.of(STARTING_OFFSET, STARTING_TIMESTAMP, StartingPoint.FIELD);
    }

    /**
     * The starting point a create request asks for.
     *
     * @throws StartingPointException naming {@code startingOffset} or {@code startingTimestamp}
     * @throws IllegalStateException  when the broker does not answer within the timeout
     */
    public StartingPoint resolve(JsonNode request) {
        JsonNode offset = request == null ? null : request.get(STARTING_OFFSET);
        JsonNode time = request == null ? null : request.get(STARTING_TIMESTAMP);
        boolean hasOffset = offset != null && !offset.isNull();
        boolean hasTime = time != null && !time.isNull();
        if (hasOffset && hasTime) {
            throw new StartingPointException(STARTING_TIMESTAMP, "give either startingOffset or startingTimestamp, "
                    + "not both");
        }
        List<TopicPartition> partitions = partitions();
        long now = clock.millis();
        if (hasTime) {
            long ts = timestamp(time, now);
            Map<TopicPartition, Long> found = list(partitions, OffsetSpec.forTimestamp(ts));
            Map<TopicPartition, Long> end = list(partitions, OffsetSpec.latest());
            Map<String, Long> offsets = new LinkedHashMap<>();
            for (TopicPartition tp : partitions) { // none at or after it: the log end, as Kafka's reset tool
                Long at = found.get(tp);
                offsets.put(StartingPoint.key(tp.topic(), tp.partition()), at == null || at < 0 ? end.get(tp) : at);
            }
            return new StartingPoint(offsets, ts, now);
        }
        if (!hasOffset || (offset.isTextual() && offset.asText().equals("latest"))) {
            return new StartingPoint(keyed(list(partitions, OffsetSpec.latest())), null, now);
        }
        if (offset.isTextual() && offset.asText().equals("earliest")) {
            return new StartingPoint(keyed(list(partitions, OffsetSpec.earliest())), null, now);
        }
        Map<TopicPartition, Long> end = list(partitions, OffsetSpec.latest());
        Map<String, Long> offsets = new LinkedHashMap<>();
        if (offset.isIntegralNumber()) {
            long value = offset.asLong();
            if (value < 0) {
                throw new StartingPointException(STARTING_OFFSET, "must be >= 0, was " + value);
            }
            for (TopicPartition tp : partitions) {
                offsets.put(StartingPoint.key(tp.topic(), tp.partition()), Math.min(value, end.get(tp)));
            }
            return new StartingPoint(offsets, null, now);
        }
        if (!offset.isObject()) {
            throw new StartingPointException(STARTING_OFFSET, "must be an offset (an integer >= 0), an object of "
                    + "\"topic-partition\": offset, \"earliest\" or \"latest\", was " + abbreviated(offset));
        }
        Map<String, TopicPartition> known = new HashMap<>();
        for (TopicPartition tp : partitions) {
            known.put(StartingPoint.key(tp.topic(), tp.partition()), tp);
            offsets.put(StartingPoint.key(tp.topic(), tp.partition()), end.get(tp)); // unnamed: the log end
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = offset.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = STARTING_OFFSET + "." + e.getKey();
            TopicPartition tp = known.get(e.getKey());
            if (tp == null) {
                throw new StartingPointException(field, "is not a partition of the source topics " + topics
                        + " (keys are topic-partition, e.g. " + partitions.get(0).topic() + "-0)");
            }
            if (!e.getValue().isIntegralNumber() || e.getValue().asLong() < 0) {
                throw new StartingPointException(field, "must be an integer >= 0, was " + abbreviated(e.getValue()));
            }
            offsets.put(e.getKey(), Math.min(e.getValue().asLong(), end.get(tp)));
        }
        return new StartingPoint(offsets, null, now);
    }

    private static long timestamp(JsonNode time, long now) {
        long ts;
        if (time.isIntegralNumber()) {
            ts = time.asLong();
        } else if (time.isTextual()) {
            try {
                ts = Instant.parse(time.asText()).toEpochMilli();
            } catch (DateTimeException e) {
                throw new StartingPointException(STARTING_TIMESTAMP, "must be epoch milliseconds or an ISO-8601 "
                        + "instant (2026-11-29T10:00:00Z), was " + abbreviated(time));
            }
        } else {
            throw new StartingPointException(STARTING_TIMESTAMP, "must be epoch milliseconds or an ISO-8601 instant, "
                    + "was " + abbreviated(time));
        }
        if (ts < 0) {
            throw new StartingPointException(STARTING_TIMESTAMP, "must be >= 0, was " + ts);
        }
        if (ts > now) {
            throw new StartingPointException(STARTING_TIMESTAMP, "is in the future (" + Instant.ofEpochMilli(ts)
                    + "); leave it out to start at the current log end");
        }
        return ts;
    }

    private static String abbreviated(JsonNode node) {
        String text = node.toString();
        return text.length() > 80 ? text.substring(0, 80) + "…" : text;
    }

    private List<TopicPartition> partitions() {
        Map<String, TopicDescription> described = get(admin.describeTopics(topics).allTopicNames());
        List<TopicPartition> out = new ArrayList<>();
        for (String topic : topics) {
            for (TopicPartitionInfo p : described.get(topic).partitions()) {
                out.add(new TopicPartition(topic, p.partition()));
            }
        }
        return out;
    }

    private Map<TopicPartition, Long> list(List<TopicPartition> partitions, OffsetSpec spec) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> info = get(admin.listOffsets(request).all());
        Map<TopicPartition, Long> out = new HashMap<>();
        info.forEach((tp, i) -> out.put(tp, i.offset()));
        return out;
    }

    private static Map<String, Long> keyed(Map<TopicPartition, Long> offsets) {
        Map<String, Long> out = new LinkedHashMap<>();
        offsets.forEach((tp, o) -> out.put(StartingPoint.key(tp.topic(), tp.partition()), o));
        return out;
    }

    private <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while resolving a starting point", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the source topics' offsets could not be read within " + timeout, e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
