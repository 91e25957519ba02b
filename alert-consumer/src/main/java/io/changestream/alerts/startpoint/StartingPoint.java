package io.changestream.alerts.startpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.model.EventSubscription;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The first source offset, per partition, a subscription receives events from; kept on the subscription as its
 * {@value #FIELD} property, so every instance, restart and rebalance of every group sees the same point. A partition
 * it does not name (created later) is read from its start. Immutable.
 *
 * @param offsets           first offset per source partition, keyed {@code topic-partition}
 * @param startingTimestamp the request's {@code startingTimestamp} (epoch ms) the offsets were found from, or null
 * @param resolvedAt        when the offsets were resolved, epoch ms
 */
public record StartingPoint(Map<String, Long> offsets, Long startingTimestamp, long resolvedAt) {

    /** The subscription property that holds it. */
    public static final String FIELD = "startingPoint";

    public StartingPoint {
        offsets = java.util.Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(offsets, "offsets")));
    }

    /** Whether the event at {@code topic}/{@code partition}/{@code offset} is at or after this point. */
    public boolean admits(String topic, int partition, long offset) {
        Long first = offsets.get(key(topic, partition));
        return first == null || offset >= first;
    }

    /** The first offset of a partition, or 0 when this point does not name it. */
    public long firstOffset(String topic, int partition) {
        return offsets.getOrDefault(key(topic, partition), 0L);
    }

    /** The key of a partition in {@link #offsets()}. */
    public static String key(String topic, int partition) {
        return topic + "-" + partition;
    }

    /** The stored form: {@code {"offsets": {"cs.changes-0": 12, …}, "startingTimestamp": …, "resolvedAt": …}}. */
    public JsonNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        ObjectNode o = json.putObject("offsets");
        offsets.forEach(o::put);
        if (startingTimestamp != null) {
            json.put("startingTimestamp", startingTimestamp);
        }
        json.put("resolvedAt", resolvedAt);
        return json;
    }

    /** The point stored on a subscription, or null when it has none (created before starting points existed). */
    public static StartingPoint of(EventSubscription subscription) {
        JsonNode json = subscription.additionalProperties().get(FIELD);
        if (json == null || !json.path("offsets").isObject()) {
            return null;
        }
        Map<String, Long> offsets = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = json.get("offsets").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().canConvertToLong()) {
                offsets.put(e.getKey(), e.getValue().asLong());
            }
        }
        JsonNode ts = json.get("startingTimestamp");
        return new StartingPoint(offsets, ts != null && ts.canConvertToLong() ? ts.asLong() : null,
                json.path("resolvedAt").asLong(0));
    }
}
