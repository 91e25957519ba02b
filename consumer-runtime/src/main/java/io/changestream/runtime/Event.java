package io.changestream.runtime;

import java.util.Objects;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.TimestampType;

/**
 * One polled record as the {@link Processor} sees it: where it came from, its key, value, headers and timestamp,
 * and which attempt this is. Immutable; a retry hands the processor a copy with {@code attempt + 1}.
 *
 * @param topic         the topic the record was read from
 * @param partition     its partition
 * @param offset        its offset in that partition
 * @param key           the deserialized key (may be null)
 * @param value         the deserialized value (may be null: a tombstone)
 * @param headers       the record headers, as the consumer returned them; treat as read-only
 * @param timestamp     the record timestamp in epoch milliseconds
 * @param timestampType what {@code timestamp} means (create time or log append time)
 * @param attempt       1 for the first attempt, 2 for the first retry, and so on
 * @param <K>           key type
 * @param <V>           value type
 */
public record Event<K, V>(String topic, int partition, long offset, K key, V value, Headers headers,
                          long timestamp, TimestampType timestampType, int attempt) {

    public Event {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(timestampType, "timestampType");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
        }
    }

    /** This event for its next attempt. */
    public Event<K, V> nextAttempt() {
        return new Event<>(topic, partition, offset, key, value, headers, timestamp, timestampType, attempt + 1);
    }

    /** {@code topic-partition@offset}, for logs and failure reasons. */
    public String coordinates() {
        return topic + "-" + partition + "@" + offset;
    }
}
