package io.changestream.topics.serde;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.changestream.topics.TopicsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serializer, deserializer and serde of one record type as UTF-8 JSON, with {@link Json#mapper()}'s
 * configuration. A null value is a tombstone both ways. Malformed input raises {@link MalformedRecordException}
 * naming the topic and JSON path. Stateless after construction and thread-safe: one instance may serve many
 * producers and consumers.
 *
 * @param <T> the record type
 */
public final class JsonSerde<T> implements Serializer<T>, Deserializer<T>, Serde<T> {

    private static final Pattern MISSING_PROPERTY = Pattern.compile("Missing required creator property '([^']+)'");

    private final Class<T> type;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    private JsonSerde(Class<T> type) {
        this.type = Objects.requireNonNull(type, "type");
        this.reader = Json.mapper().readerFor(type);
        this.writer = Json.mapper().writerFor(type);
    }

    /** A serde of {@code type} (any record of {@code io.changestream.topics.model}, or any Jackson-mappable type). */
    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(type);
    }

    /** The record type. */
    public Class<T> type() {
        return type;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        try {
            return writer.writeValueAsBytes(data);
        } catch (JsonProcessingException e) {
            throw new TopicsException("cannot write " + type.getSimpleName() + " to topic " + topic + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length == 0) {
            throw new MalformedRecordException(type.getSimpleName(), topic, "$", "empty value", null);
        }
        try {
            return reader.readValue(data);
        } catch (IOException e) {
            throw malformed(topic, e);
        }
    }

    /** The record as a JSON string (e.g. for an SSE frame or a log line). */
    public String toJson(T value) {
        byte[] bytes = serialize(null, Objects.requireNonNull(value, "value"));
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Parses a JSON string; malformed input raises {@link MalformedRecordException} without a topic. */
    public T fromJson(String json) {
        return deserialize(null, Objects.requireNonNull(json, "json").getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        // configured at construction; Kafka configs do not change it
    }

    @Override
    public void close() {
        // nothing to release
    }

    private MalformedRecordException malformed(String topic, IOException e) {
        String typeName = type.getSimpleName();
        if (e instanceof ValueInstantiationException vie) {
            Throwable cause = vie.getCause() == null ? vie : vie.getCause();
            return new MalformedRecordException(typeName, topic, path(vie.getPath()), cause.getMessage(), e);
        }
        if (e instanceof JsonMappingException jme) {
            String path = path(jme.getPath());
            Matcher missing = MISSING_PROPERTY.matcher(jme.getOriginalMessage());
            if (missing.find()) {
                return new MalformedRecordException(typeName, topic, append(path, missing.group(1)),
                        "required field '" + missing.group(1) + "' is missing", e);
            }
            return new MalformedRecordException(typeName, topic, path, firstLine(jme.getOriginalMessage()), e);
        }
        if (e instanceof StreamReadException sre) {
            String path = "$";
            JsonParser parser = sre.getProcessor();
            if (parser != null) {
                path = pointerToPath(parser.getParsingContext().pathAsPointer().toString());
            }
            String where = sre.getLocation() == null ? ""
                    : " (line " + sre.getLocation().getLineNr() + ", column " + sre.getLocation().getColumnNr() + ")";
            return new MalformedRecordException(typeName, topic, path, "not valid JSON: "
                    + firstLine(sre.getOriginalMessage()) + where, e);
        }
        return new MalformedRecordException(typeName, topic, "$", String.valueOf(e.getMessage()), e);
    }

    private static String path(List<JsonMappingException.Reference> references) {
        StringBuilder path = new StringBuilder("$");
        for (JsonMappingException.Reference ref : references) {
            if (ref.getFieldName() != null) {
                path.append('.').append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String append(String path, String field) {
        return path.endsWith("." + field) ? path : path + "." + field;
    }

    private static String pointerToPath(String pointer) {
        StringBuilder path = new StringBuilder("$");
        for (String token : pointer.split("/")) {
            if (token.isEmpty()) {
                continue;
            }
            if (token.chars().allMatch(Character::isDigit)) {
                path.append('[').append(token).append(']');
            } else {
                path.append('.').append(token.replace("~1", "/").replace("~0", "~"));
            }
        }
        return path.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no detail)";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    @Override
    public String toString() {
        return "JsonSerde[" + type.getName() + "]";
    }
}
