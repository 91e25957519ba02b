package io.changestream.cdc.transform;

import java.util.Locale;

/**
 * What became of one captured row. Every row gets exactly one outcome, and each is counted
 * ({@code cdc_events_total{outcome}}): nothing is dropped without a trace.
 */
public enum RowOutcome {
    /** Turned into an envelope on {@code changes} or {@code pipeline-status}. */
    PRODUCED,
    /** Valid, but excluded by an entity-type or event-type filter. */
    FILTERED,
    /** Not an event by definition: updates/deletes of change_event rows, other extensions, deleted status rows. */
    IGNORED,
    /** Could not become an envelope (malformed, missing required field, oversized): written to {@code cdc-dlq}. */
    DEAD_LETTERED;

    /** The header and tag value, e.g. {@code dead_lettered}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome of a header value written by {@link #tag()}. */
    public static RowOutcome ofTag(String tag) {
        return valueOf(tag.toUpperCase(Locale.ROOT));
    }

    /** True when the row leaves as a record on one of changestream's topics. */
    public boolean isProduced() {
        return this == PRODUCED || this == DEAD_LETTERED;
    }
}
