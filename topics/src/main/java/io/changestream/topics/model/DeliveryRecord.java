package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The value on {@code alert-ledger} (key = {@link #key()} = {@code groupId/subscriptionId/eventId}): proof that a
 * consumer group delivered one event to one subscription. Written to the partition of the source event so that a
 * consumer that takes over a {@code changes} partition rebuilds its ledger window from the same partition number.
 *
 * @param groupId         the consumer group; required
 * @param subscriptionId  the subscription id; required
 * @param eventId         the {@link ChangeEvent#id()}; required
 * @param destinationId   the destination delivered to, absent when the record covers all destinations
 * @param status          one of {@link #DELIVERED}, {@link #FILTERED_OUT}, {@link #DEAD_LETTERED}; required
 * @param attempts        delivery attempts made (1 = first try succeeded)
 * @param deliveredAt     when the delivery finished, epoch milliseconds
 * @param sourceTopic     topic of the source event
 * @param sourcePartition partition of the source event
 * @param sourceOffset    offset of the source event
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeliveryRecord(
        @JsonProperty(required = true) String groupId,
        @JsonProperty(required = true) String subscriptionId,
        @JsonProperty(required = true) String eventId,
        String destinationId,
        @JsonProperty(required = true) String status,
        int attempts,
        long deliveredAt,
        String sourceTopic,
        int sourcePartition,
        long sourceOffset) {

    /** Delivered to the destination(s). */
    public static final String DELIVERED = "DELIVERED";
    /** The subscription's filters did not match; nothing to deliver, but the pair is settled. */
    public static final String FILTERED_OUT = "FILTERED_OUT";
    /** Delivery failed finally; the event went to {@code alert-dlq}. */
    public static final String DEAD_LETTERED = "DEAD_LETTERED";
    /**
     * Group progress only (with a {@code destinationId}): that destination group was settled without sending — it
     * had nothing to send (a run state outside a lineage destination's {@code statuses}, roles that select no
     * receiver). {@code /status} counts it as skipped, not delivered.
     */
    public static final String SKIPPED = "SKIPPED";

    public DeliveryRecord {
        Objects.requireNonNull(groupId, "DeliveryRecord.groupId is required");
        Objects.requireNonNull(subscriptionId, "DeliveryRecord.subscriptionId is required");
        Objects.requireNonNull(eventId, "DeliveryRecord.eventId is required");
        Objects.requireNonNull(status, "DeliveryRecord.status is required");
        if (attempts < 0) {
            throw new IllegalArgumentException("DeliveryRecord.attempts must be >= 0, was " + attempts);
        }
    }

    /** The Kafka key of this record. */
    public String key() {
        return TopicKeys.ledger(groupId, subscriptionId, eventId);
    }
}
