package io.changestream.alerts.filter;

import com.google.re2j.Pattern;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiled FQN patterns, at most {@value #MAX_ENTRIES} (cleared when full); any thread. Patterns are RE2/J
 * ({@code com.google.re2j}): matching runs in time linear in the subject, whatever the pattern (no backtracking), so
 * a hostile pattern cannot hold a lane.
 */
final class PatternCache {

    /** Patterns kept compiled. */
    static final int MAX_ENTRIES = 4_096;

    private static final Map<String, Pattern> CACHE = new ConcurrentHashMap<>();

    private PatternCache() {
    }

    /** @throws com.google.re2j.PatternSyntaxException when RE2/J refuses the pattern */
    static Pattern get(String regex) {
        Pattern pattern = CACHE.get(regex);
        if (pattern == null) {
            pattern = Pattern.compile(regex);
            if (CACHE.size() >= MAX_ENTRIES) {
                CACHE.clear();
            }
            CACHE.put(regex, pattern);
        }
        return pattern;
    }
}
