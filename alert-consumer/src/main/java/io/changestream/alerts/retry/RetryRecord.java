package io.changestream.alerts.retry;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.changestream.topics.serde.Json;
import java.util.Objects;

/**
 * The value on {@code alert-retry} (key = {@link #destination()}): one destination group of one (event,
 * subscription) pair handed off the commit path. It carries the source record's value as read, so the retry path
 * needs nothing else from {@code changes}. Immutable; JSON.
 *
 * @param groupId         the alert service's group
 * @param subscriptionId  the subscription
 * @param eventId         the event id (ledger key, DLQ, Idempotency-Key)
 * @param groupKey        the destination group's key within the subscription
 * @param destination     the destination key (destination id, or subscription/type/config hash): the record key
 * @param sourceTopic     topic of the source record ({@code changes} or {@code pipeline-status})
 * @param sourcePartition its partition (the ledger partition of the pair)
 * @param sourceOffset    its offset
 * @param value           the source record's value (event JSON)
 * @param attempts        attempts made before the hand-off
 * @param firstFailedAt   epoch ms of the first failure, 0 when parked before any send
 * @param handedOffAt     epoch ms of the hand-off
 * @param notBefore       epoch ms before which it is not tried (the receiver's Retry-After or the backoff)
 * @param reason          why it was handed off
 * @param traceparent     the W3C trace context of the source record, or null
 * @param orderKey        the source record's key (the entity): the retry path keeps records of one order key in
 *                        order and tries others beside them; null (records written before it existed): tried alone
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RetryRecord(String groupId, String subscriptionId, String eventId, String groupKey, String destination,
                          String sourceTopic, int sourcePartition, long sourceOffset, String value, int attempts,
                          long firstFailedAt, long handedOffAt, long notBefore, String reason, String traceparent,
                          String orderKey) {

    public RetryRecord {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(subscriptionId, "subscriptionId");
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(groupKey, "groupKey");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(sourceTopic, "sourceTopic");
        Objects.requireNonNull(value, "value");
    }

    /** The pair and group this record settles: a second hand-off of it (after a crash) is settled once. */
    String settlementKey() {
        return subscriptionId + "/" + eventId + "/" + groupKey;
    }

    String toJson() {
        try {
            return Json.mapper().writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("retry record not writable: " + e.getOriginalMessage(), e);
        }
    }

    static RetryRecord fromJson(String json) {
        try {
            return Json.mapper().readValue(json, RetryRecord.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a retry record: " + e.getOriginalMessage(), e);
        }
    }
}
