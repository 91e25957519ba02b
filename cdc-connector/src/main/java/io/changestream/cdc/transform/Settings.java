package io.changestream.cdc.transform;

import io.changestream.cdc.CdcException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed reads of flat {@code key=value} settings (a properties file, the SMT's Connect config), each failing with a
 * message that names the setting. Remembers which keys were read so that unknown (misspelt) keys can be refused.
 * Not thread-safe: used once while building a config record.
 */
public final class Settings {

    private final Map<String, ?> values;
    private final Set<String> read = new HashSet<>();

    public Settings(Map<String, ?> values) {
        this.values = Map.copyOf(values);
    }

    /** The raw value, or null when unset or blank. */
    public String raw(String key) {
        read.add(key);
        Object value = values.get(key);
        if (value == null) {
            return null;
        }
        String text = value.toString().trim();
        return text.isEmpty() ? null : text;
    }

    public String string(String key, String defaultValue) {
        String value = raw(key);
        return value == null ? defaultValue : value;
    }

    public String required(String key) {
        String value = raw(key);
        if (value == null) {
            throw new CdcException("setting " + key + " is required");
        }
        return value;
    }

    public long number(String key, long defaultValue, long min, long max) {
        String value = raw(key);
        long parsed;
        try {
            parsed = value == null ? defaultValue : Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new CdcException("setting " + key + " must be a whole number, was '" + value + "'");
        }
        if (parsed < min || parsed > max) {
            throw new CdcException("setting " + key + " must be in [" + min + ", " + max + "], was " + parsed);
        }
        return parsed;
    }

    public int integer(String key, int defaultValue, int min, int max) {
        return (int) number(key, defaultValue, min, max);
    }

    public boolean bool(String key, boolean defaultValue) {
        String value = raw(key);
        if (value == null) {
            return defaultValue;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new CdcException("setting " + key + " must be true or false, was '" + value + "'");
        };
    }

    /** A comma-separated list; empty when unset. */
    public List<String> list(String key) {
        String value = raw(key);
        if (value == null) {
            return List.of();
        }
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** One of the allowed values (case-insensitive), returned lower case. */
    public String oneOf(String key, String defaultValue, String... allowed) {
        String value = string(key, defaultValue).toLowerCase(Locale.ROOT);
        if (!Arrays.asList(allowed).contains(value)) {
            throw new CdcException("setting " + key + " must be one of " + String.join(", ", allowed)
                    + ", was '" + value + "'");
        }
        return value;
    }

    /**
     * Every key starting with {@code prefix} that no earlier read asked for, without the prefix, in key order; marks
     * them read. Call it after the fixed keys under the same prefix were read (pass-through settings).
     */
    public Map<String, String> remainingWithPrefix(String prefix) {
        Map<String, String> out = new java.util.TreeMap<>();
        for (String key : values.keySet()) {
            if (key.startsWith(prefix) && key.length() > prefix.length() && !read.contains(key)) {
                String value = raw(key);
                if (value != null) {
                    out.put(key.substring(prefix.length()), value);
                }
            }
        }
        return out;
    }

    /** Fails when a key was given that no read asked for (a misspelt setting would otherwise be ignored). */
    public void refuseUnknown() {
        Set<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(read);
        if (!unknown.isEmpty()) {
            throw new CdcException("unknown setting(s) " + unknown + " (see cdc-connector/README.md)");
        }
    }
}
