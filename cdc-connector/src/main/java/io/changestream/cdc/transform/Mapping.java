package io.changestream.cdc.transform;

import java.nio.charset.StandardCharsets;

/**
 * The result of mapping one {@link CapturedRow}: an outcome and, when it is produced, the target topic, key and JSON
 * value (UTF-8, written once: the embedded connector sends these bytes as they are). {@code reason} says why a row was
 * filtered, ignored or dead-lettered (never contains row content).
 */
public record Mapping(RowOutcome outcome, String topic, String key, byte[] value, String reason) {

    static Mapping skipped(RowOutcome outcome, String reason) {
        return new Mapping(outcome, null, null, null, reason);
    }

    /** The value as text (null when there is none). */
    public String valueText() {
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
}
