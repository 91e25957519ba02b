package io.changestream.topics.model;

import java.util.List;
import java.util.Map;

/** Null-tolerant defensive copies (lists and maps) and defaults for record components. */
final class RecordValues {

    private RecordValues() {
    }

    /** An unmodifiable copy, empty for null; rejects null elements with a message naming the list. */
    static <T> List<T> copy(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    /** An unmodifiable copy, or null when the list is null (for fields whose absence is meaningful). */
    static <T> List<T> copyOrNull(List<T> list) {
        return list == null ? null : List.copyOf(list);
    }

    /** An unmodifiable copy of a map, empty for null. */
    static <K, V> Map<K, V> copy(Map<K, V> map) {
        return map == null ? Map.of() : Map.copyOf(map);
    }

    /**
     * {@code value}, or {@code defaultValue} when it is null.
     *
     * @throws IllegalArgumentException naming {@code field} when the value is below {@code min}
     */
    static Integer atLeast(Integer value, int defaultValue, int min, String field) {
        if (value == null) {
            return defaultValue;
        }
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", was " + value);
        }
        return value;
    }
}
