package io.changestream.topics.model;

import java.util.List;

/** Null-tolerant defensive copies for record components. */
final class Lists {

    private Lists() {
    }

    /** An unmodifiable copy, empty for null; rejects null elements with a message naming the list. */
    static <T> List<T> copy(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    /** An unmodifiable copy, or null when the list is null (for fields whose absence is meaningful). */
    static <T> List<T> copyOrNull(List<T> list) {
        return list == null ? null : List.copyOf(list);
    }
}
