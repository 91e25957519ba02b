package io.changestream.logs.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changestream.topics.model.LogStreamEvent;
import java.nio.charset.StandardCharsets;

/** Encodes SSE frames: unnamed events whose data is one JSON {@link LogStreamEvent}. Stateless; any thread. */
public final class EventFrames {

    /** The heartbeat comment frame. */
    public static final byte[] HEARTBEAT = ": heartbeat\n\n".getBytes(StandardCharsets.US_ASCII);

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private EventFrames() {
    }

    /** {@code data: <json>\n\n} in UTF-8. The JSON holds no raw newline, so one data line is enough. */
    public static byte[] frame(LogStreamEvent event) {
        return ("data: " + json(event) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The event as JSON. */
    public static String json(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new LogTailerException("cannot encode " + value, e);
        }
    }

    /** The shared mapper (thread-safe once configured). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
