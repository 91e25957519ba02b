package io.changestream.topics.serde;

import io.changestream.topics.TopicsException;

/**
 * Input that cannot become a record: not JSON, the wrong JSON type at some path, or a required field missing.
 * The message names the record type, the topic and the JSON path (e.g. {@code $.changeDescription.fieldsUpdated[0]
 * .name}). Thrown by {@link JsonSerde} on the thread that deserializes (a consumer's poll thread, usually); it is not
 * retriable: the same bytes fail the same way, so the caller dead-letters or skips the record.
 */
public class MalformedRecordException extends TopicsException {

    private final String topic;
    private final String path;

    public MalformedRecordException(String type, String topic, String path, String detail, Throwable cause) {
        super("malformed " + type + " on topic " + (topic == null ? "(none)" : topic) + " at " + path + ": "
                + detail, cause);
        this.topic = topic;
        this.path = path;
    }

    /** The topic the bytes came from, null when none was given. */
    public String topic() {
        return topic;
    }

    /** JSON path of the offending value ({@code $} for the whole record). */
    public String path() {
        return path;
    }
}
