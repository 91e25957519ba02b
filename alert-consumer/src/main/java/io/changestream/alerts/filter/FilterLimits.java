package io.changestream.alerts.filter;

/**
 * Bounds of the condition compiler.
 *
 * @param maxConditionLength longest accepted condition, characters (default 65,536)
 * @param maxDepth           deepest nesting of {@code !}, {@code &&}, {@code ||} and parentheses (default 64)
 * @param maxPatternLength   longest regular expression accepted by {@code matchAnyEntityFqn} (default 1,024)
 */
public record FilterLimits(int maxConditionLength, int maxDepth, int maxPatternLength) {

    /** The defaults. */
    public static final FilterLimits DEFAULTS = new FilterLimits(65_536, 64, 1_024);

    public FilterLimits {
        if (maxConditionLength < 1) {
            throw new IllegalArgumentException("filter.maxConditionLength must be >= 1, was " + maxConditionLength);
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("filter.maxDepth must be >= 1, was " + maxDepth);
        }
        if (maxPatternLength < 1) {
            throw new IllegalArgumentException("filter.maxPatternLength must be >= 1, was " + maxPatternLength);
        }
    }
}
