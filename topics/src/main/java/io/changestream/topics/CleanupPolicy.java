package io.changestream.topics;

/** Kafka {@code cleanup.policy} of a topic. */
public enum CleanupPolicy {
    /** Segments are deleted after the retention time. */
    DELETE("delete"),
    /** Only the latest record per key is kept; tombstones delete keys. */
    COMPACT("compact"),
    /** Compacted, and segments older than the retention time are deleted as well. */
    COMPACT_DELETE("compact,delete");

    private final String configValue;

    CleanupPolicy(String configValue) {
        this.configValue = configValue;
    }

    /** The value of the {@code cleanup.policy} topic config. */
    public String configValue() {
        return configValue;
    }

    /** True when the policy deletes by retention time (delete or compact+delete). */
    public boolean deletes() {
        return this != COMPACT;
    }
}
