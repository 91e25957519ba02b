package io.changestream.topics.serde;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The one Jackson configuration of changestream's topics: unknown fields are ignored, nulls are omitted on write,
 * and input of the wrong JSON type is rejected instead of coerced ({@code "timestamp": "12"}, {@code 1.5} for an
 * int, a number for an enum, a null for a primitive, trailing tokens). Java time types are written as ISO strings.
 *
 * <p>{@link #mapper()} is shared and thread-safe for reading and writing; callers must not reconfigure it (use
 * {@link #newMapper()} for a private copy to customise).
 */
public final class Json {

    private static final ObjectMapper SHARED = newMapper();

    private Json() {
    }

    /** The shared mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return SHARED;
    }

    /** A new mapper with the same configuration, for callers that need to add modules or features. */
    public static ObjectMapper newMapper() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                        JsonInclude.Include.USE_DEFAULTS))
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
    }
}
