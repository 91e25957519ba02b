package io.changestream.alerts.filter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/** Compiled FQN patterns, at most {@value #MAX_ENTRIES} (cleared when full); any thread. */
final class PatternCache {

    /** Patterns kept compiled. */
    static final int MAX_ENTRIES = 4_096;

    private static final Map<String, Pattern> CACHE = new ConcurrentHashMap<>();

    private PatternCache() {
    }

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
