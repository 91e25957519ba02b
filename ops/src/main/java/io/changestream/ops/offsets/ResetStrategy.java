package io.changestream.ops.offsets;

import io.changestream.ops.UsageException;
import java.text.ParseException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import org.apache.kafka.common.utils.Utils;

/**
 * Where {@link OffsetReset} moves a group's committed offsets: the options of Kafka's
 * {@code kafka-consumer-groups --reset-offsets}, with the same semantics (REFERENCES.md, section E).
 */
public sealed interface ResetStrategy {

    /** The strategy as the command-line option that asks for it, for printing. */
    String option();

    /** {@code --to-datetime}: the first offset whose record timestamp is at or after {@code epochMillis}. */
    record ToDatetime(long epochMillis) implements ResetStrategy {
        @Override
        public String option() {
            return "--to-datetime " + java.time.Instant.ofEpochMilli(epochMillis);
        }
    }

    /** {@code --by-duration}: {@code --to-datetime} of now minus {@code duration}. */
    record ByDuration(Duration duration) implements ResetStrategy {
        public ByDuration {
            if (duration == null || duration.isNegative()) {
                throw new UsageException("--by-duration must be a non-negative ISO-8601 duration such as PT1H");
            }
        }

        @Override
        public String option() {
            return "--by-duration " + duration;
        }
    }

    /** {@code --to-earliest}: the log start offset. */
    record ToEarliest() implements ResetStrategy {
        @Override
        public String option() {
            return "--to-earliest";
        }
    }

    /** {@code --to-latest}: the log end offset. */
    record ToLatest() implements ResetStrategy {
        @Override
        public String option() {
            return "--to-latest";
        }
    }

    /** {@code --to-offset}: this offset, clamped to [log start, log end]. */
    record ToOffset(long offset) implements ResetStrategy {
        @Override
        public String option() {
            return "--to-offset " + offset;
        }
    }

    /** {@code --shift-by}: the committed offset plus {@code delta}, clamped to [log start, log end]. */
    record ShiftBy(long delta) implements ResetStrategy {
        @Override
        public String option() {
            return "--shift-by " + delta;
        }
    }

    /**
     * {@code --to-current}: the committed offset, unchanged; a partition without one gets the log end offset, as in
     * Kafka's tool. Useful to pin a group on partitions it has not committed to yet, or to export its position.
     */
    record ToCurrent() implements ResetStrategy {
        @Override
        public String option() {
            return "--to-current";
        }
    }

    /**
     * {@code --from-file}: the offsets a CSV plan gives this group ({@link ResetPlanCsv}), clamped to [log start,
     * log end] like {@code --to-offset}; the file, not {@code --topic}, says which partitions are reset.
     *
     * @param source  where the plan came from, for printing
     * @param offsets the requested offset of each partition
     */
    record FromFile(String source, java.util.Map<org.apache.kafka.common.TopicPartition, Long> offsets)
            implements ResetStrategy {
        public FromFile {
            offsets = java.util.Map.copyOf(offsets);
        }

        @Override
        public String option() {
            return "--from-file " + source;
        }
    }

    /**
     * Parses a {@code --to-datetime} value exactly as Kafka's tool does ({@code Utils.getDateTime}):
     * {@code yyyy-MM-dd'T'HH:mm:ss.SSS[XXX]}; a value without zone is UTC.
     */
    static ToDatetime toDatetime(String value) {
        try {
            return new ToDatetime(Utils.getDateTime(value));
        } catch (ParseException | IllegalArgumentException e) {
            throw new UsageException("--to-datetime '" + value
                    + "' is not yyyy-MM-dd'T'HH:mm:ss.SSS[XXX] (e.g. 2026-11-29T10:00:00.000 or …+01:00)");
        }
    }

    /** Parses a {@code --by-duration} value (ISO-8601, e.g. {@code PT1H}, {@code P1DT30M}). */
    static ByDuration byDuration(String value) {
        try {
            return new ByDuration(Duration.parse(value));
        } catch (DateTimeParseException e) {
            throw new UsageException("--by-duration '" + value + "' is not an ISO-8601 duration such as PT1H");
        }
    }
}
