package io.changestream.cdc.transform;

/**
 * The result of mapping one {@link CapturedRow}: an outcome and, when it is produced, the target topic, key and JSON
 * value. {@code reason} says why a row was filtered, ignored or dead-lettered (never contains row content).
 */
public record Mapping(Outcome outcome, String topic, String key, String value, String reason) {

    static Mapping skipped(Outcome outcome, String reason) {
        return new Mapping(outcome, null, null, null, reason);
    }
}
