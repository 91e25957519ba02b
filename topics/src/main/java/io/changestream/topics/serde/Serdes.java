package io.changestream.topics.serde;

import io.changestream.topics.TopicSpec;
import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.PipelineRunStatus;

/**
 * Shared serdes of every value record. Each is created once and is thread-safe. Keys are plain strings: use Kafka's
 * {@code StringSerializer}/{@code StringDeserializer} (or {@link #key()}).
 */
public final class Serdes {

    private static final JsonSerde<ChangeEvent> CHANGE_EVENT = JsonSerde.of(ChangeEvent.class);
    private static final JsonSerde<PipelineRunStatus> PIPELINE_RUN_STATUS = JsonSerde.of(PipelineRunStatus.class);
    private static final JsonSerde<EventSubscription> EVENT_SUBSCRIPTION = JsonSerde.of(EventSubscription.class);
    private static final JsonSerde<DeliveryRecord> DELIVERY_RECORD = JsonSerde.of(DeliveryRecord.class);
    private static final JsonSerde<FailedEvent> FAILED_EVENT = JsonSerde.of(FailedEvent.class);
    private static final JsonSerde<LogChunk> LOG_CHUNK = JsonSerde.of(LogChunk.class);
    private static final JsonSerde<LogStreamEvent> LOG_STREAM_EVENT = JsonSerde.of(LogStreamEvent.class);
    private static final JsonSerde<CdcDeadLetter> CDC_DEAD_LETTER = JsonSerde.of(CdcDeadLetter.class);

    private Serdes() {
    }

    /** The key serde of every changestream topic (UTF-8 strings). */
    public static org.apache.kafka.common.serialization.Serde<String> key() {
        return org.apache.kafka.common.serialization.Serdes.String();
    }

    /** Values of {@code changes}. */
    public static JsonSerde<ChangeEvent> changeEvent() {
        return CHANGE_EVENT;
    }

    /** Values of {@code pipeline-status}. */
    public static JsonSerde<PipelineRunStatus> pipelineRunStatus() {
        return PIPELINE_RUN_STATUS;
    }

    /** Values of {@code subscriptions}. */
    public static JsonSerde<EventSubscription> eventSubscription() {
        return EVENT_SUBSCRIPTION;
    }

    /** Values of {@code alert-ledger}. */
    public static JsonSerde<DeliveryRecord> deliveryRecord() {
        return DELIVERY_RECORD;
    }

    /** Values of {@code alert-dlq}. */
    public static JsonSerde<FailedEvent> failedEvent() {
        return FAILED_EVENT;
    }

    /** Values of {@code log-chunks}. */
    public static JsonSerde<LogChunk> logChunk() {
        return LOG_CHUNK;
    }

    /** SSE frames of the log stream (not on a topic). */
    public static JsonSerde<LogStreamEvent> logStreamEvent() {
        return LOG_STREAM_EVENT;
    }

    /** Values of {@code cdc-dlq}. */
    public static JsonSerde<CdcDeadLetter> cdcDeadLetter() {
        return CDC_DEAD_LETTER;
    }

    /**
     * The value serde of a catalog topic.
     *
     * @throws io.changestream.topics.TopicsException for Debezium's own topics, whose values are Debezium's
     */
    @SuppressWarnings("unchecked")
    public static <T> JsonSerde<T> valueOf(TopicSpec spec) {
        for (JsonSerde<?> serde : new JsonSerde<?>[] {CHANGE_EVENT, PIPELINE_RUN_STATUS, EVENT_SUBSCRIPTION,
                DELIVERY_RECORD, FAILED_EVENT, LOG_CHUNK, CDC_DEAD_LETTER}) {
            if (serde.type() == spec.valueType()) {
                return (JsonSerde<T>) serde;
            }
        }
        throw new io.changestream.topics.TopicsException("topic " + spec.name() + " carries "
                + spec.valueType().getSimpleName() + " values, which have no changestream serde");
    }
}
