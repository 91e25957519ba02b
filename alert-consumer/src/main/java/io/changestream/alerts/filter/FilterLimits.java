package io.changestream.alerts.filter;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.util.List;

/**
 * Bounds of the condition compiler and evaluator.
 *
 * @param maxConditionLength longest accepted condition, characters (default 65,536)
 * @param maxDepth           deepest nesting of {@code !}, {@code &&}, {@code ||} and parentheses (default 64)
 * @param maxPatternLength   {@link #MAX_PATTERN_LENGTH}: longest regular expression of {@code matchAnyEntityFqn}
 * @param maxPatternProgram  {@link #MAX_PATTERN_PROGRAM}, instructions: with the subject bound it caps the work of one
 *                           match ({@code x{1000}} is short but large)
 * @param maxSubjectLength   {@link #MAX_SUBJECT_LENGTH} (the platform's FQNs are at most 3,072): a longer one is an
 *                           evaluation error (dead-lettered as PUBLISHER), never a long match
 */
public record FilterLimits(int maxConditionLength, int maxDepth, int maxPatternLength, int maxPatternProgram,
                           int maxSubjectLength) {

    public static final Setting<Integer> MAX_PATTERN_LENGTH = Setting.integer("filter.maxPatternLength")
            .defaultsTo(1_024).atLeast(1).doc("longest matchAnyEntityFqn regular expression, chars");
    public static final Setting<Integer> MAX_PATTERN_PROGRAM = Setting.integer("filter.maxPatternProgram")
            .defaultsTo(10_000).atLeast(1).doc("largest compiled RE2/J program of one pattern");
    public static final Setting<Integer> MAX_SUBJECT_LENGTH = Setting.integer("filter.maxSubjectLength")
            .defaultsTo(4_096).atLeast(1).doc("longest FQN a pattern is matched against; longer is an evaluation "
                    + "error");
    /** The filter's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(MAX_PATTERN_LENGTH, MAX_PATTERN_PROGRAM,
            MAX_SUBJECT_LENGTH);

    /** The defaults. */
    public static final FilterLimits DEFAULTS = new FilterLimits(65_536, 64, MAX_PATTERN_LENGTH.defaultOrFail(),
            MAX_PATTERN_PROGRAM.defaultOrFail(), MAX_SUBJECT_LENGTH.defaultOrFail());

    public FilterLimits {
        if (maxConditionLength < 1) {
            throw new IllegalArgumentException("filter.maxConditionLength must be >= 1, was " + maxConditionLength);
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("filter.maxDepth must be >= 1, was " + maxDepth);
        }
        MAX_PATTERN_LENGTH.check(maxPatternLength);
        MAX_PATTERN_PROGRAM.check(maxPatternProgram);
        MAX_SUBJECT_LENGTH.check(maxSubjectLength);
    }

    /** The limits {@code settings} give. */
    public static FilterLimits from(SettingsReader settings) {
        return new FilterLimits(DEFAULTS.maxConditionLength(), DEFAULTS.maxDepth(), settings.get(MAX_PATTERN_LENGTH),
                settings.get(MAX_PATTERN_PROGRAM), settings.get(MAX_SUBJECT_LENGTH));
    }
}
