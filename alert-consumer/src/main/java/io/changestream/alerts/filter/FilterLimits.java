package io.changestream.alerts.filter;

/**
 * Bounds of the condition compiler and evaluator.
 *
 * @param maxConditionLength longest accepted condition, characters (default 65,536)
 * @param maxDepth           deepest nesting of {@code !}, {@code &&}, {@code ||} and parentheses (default 64)
 * @param maxPatternLength   longest regular expression accepted by {@code matchAnyEntityFqn} (setting
 *                           {@code filter.maxPatternLength}, default 1,024)
 * @param maxPatternProgram  largest compiled RE2/J program of one pattern, instructions (setting
 *                           {@code filter.maxPatternProgram}, default 10,000): with the subject bound it caps the
 *                           work of one match ({@code x{1000}} is short but large)
 * @param maxSubjectLength   longest FQN a pattern is matched against (setting {@code filter.maxSubjectLength},
 *                           default 4,096; the platform's FQNs are at most 3,072): a longer one is an evaluation
 *                           error (dead-lettered as PUBLISHER), never a long match
 */
public record FilterLimits(int maxConditionLength, int maxDepth, int maxPatternLength, int maxPatternProgram,
                           int maxSubjectLength) {

    /** The defaults. */
    public static final FilterLimits DEFAULTS = new FilterLimits(65_536, 64, 1_024, 10_000, 4_096);

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
        if (maxPatternProgram < 1) {
            throw new IllegalArgumentException("filter.maxPatternProgram must be >= 1, was " + maxPatternProgram);
        }
        if (maxSubjectLength < 1) {
            throw new IllegalArgumentException("filter.maxSubjectLength must be >= 1, was " + maxSubjectLength);
        }
    }
}
