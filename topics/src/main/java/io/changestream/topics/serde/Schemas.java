package io.changestream.topics.serde;

import io.changestream.topics.TopicsException;
import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.PipelineRunStatus;
import java.util.Map;

/**
 * Where the JSON Schema of each value record lives on the classpath ({@code schemas/*.schema.json}). Schemas use
 * draft-07 and {@code $id}s under {@value #BASE_URI}; {@code failed-event} refers to {@code change-event} by a
 * relative {@code $ref}, so map that prefix to {@value #CLASSPATH_DIR} when loading.
 */
public final class Schemas {

    /** Base URI of every schema {@code $id}. */
    public static final String BASE_URI = "https://changestream.io/schemas/";
    /** Classpath directory of the schema files. */
    public static final String CLASSPATH_DIR = "schemas/";

    private static final Map<Class<?>, String> FILES = Map.of(
            ChangeEvent.class, "change-event.schema.json",
            PipelineRunStatus.class, "pipeline-run-status.schema.json",
            EventSubscription.class, "event-subscription.schema.json",
            DeliveryRecord.class, "delivery-record.schema.json",
            FailedEvent.class, "failed-event.schema.json",
            LogChunk.class, "log-chunk.schema.json",
            LogStreamEvent.class, "log-stream-event.schema.json",
            CdcDeadLetter.class, "cdc-dead-letter.schema.json");

    private Schemas() {
    }

    /** The record types that have a schema. */
    public static java.util.Set<Class<?>> types() {
        return FILES.keySet();
    }

    /** Classpath resource of the schema of {@code type}, e.g. {@code schemas/change-event.schema.json}. */
    public static String resource(Class<?> type) {
        String file = FILES.get(type);
        if (file == null) {
            throw new TopicsException(type.getName() + " has no JSON schema");
        }
        return CLASSPATH_DIR + file;
    }

    /** The {@code $id} of the schema of {@code type}. */
    public static String id(Class<?> type) {
        return BASE_URI + resource(type).substring(CLASSPATH_DIR.length());
    }
}
