package io.changestream.cdc.transform;

import io.changestream.cdc.CdcException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed reads of flat {@code key=value} settings (a properties file, the SMT's Connect config), each failing with a
 * message that names the setting. Remembers which keys were read so that unknown (misspelt) keys can be refused.
 * Also records every key it was asked for with the default it was given ({@link #declared()}), so that the README's
 * settings table can be checked against the code. Not thread-safe: used once while building a config record.
 */
public final class Settings {

    private final Map<String, ?> values;
    private final Set<String> read = new HashSet<>();
    private final Map<String, String> declared = new LinkedHashMap<>();

    /** The default shown by {@link #declared()} for a key read by {@link #required(String)}. */
    public static final String REQUIRED = "(required)";

    /** Key suffix {@link #declared()} shows for a {@link #remainingWithPrefix(String)} prefix. */
    public static final String PASS_THROUGH = "<client property>";

    public Settings(Map<String, ?> values) {
        this.values = Map.copyOf(values);
    }

    /** The raw value, or null when unset or blank. */
    public String raw(String key) {
        read.add(key);
        declared.putIfAbsent(key, null);
        Object value = values.get(key);
        if (value == null) {
            return null;
        }
        String text = value.toString().trim();
        return text.isEmpty() ? null : text;
    }

    public String string(String key, String defaultValue) {
        declared.put(key, defaultValue);
        String value = raw(key);
        return value == null ? defaultValue : value;
    }

    public String required(String key) {
        declared.put(key, REQUIRED);
        String value = raw(key);
        if (value == null) {
            throw new CdcException("setting " + key + " is required");
        }
        return value;
    }

    public long number(String key, long defaultValue, long min, long max) {
        declared.put(key, Long.toString(defaultValue));
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

    /** A whole number, or null when unset (the caller derives it); {@code shownDefault} is what README shows. */
    public Long optionalNumber(String key, String shownDefault, long min, long max) {
        Long parsed = raw(key) == null ? null : number(key, min, min, max);
        declared.put(key, shownDefault);
        return parsed;
    }

    /** A text value, or null when unset (the caller derives it); {@code shownDefault} is what README shows. */
    public String derived(String key, String shownDefault) {
        String value = raw(key);
        declared.put(key, shownDefault);
        return value;
    }

    public int integer(String key, int defaultValue, int min, int max) {
        return (int) number(key, defaultValue, min, max);
    }

    public boolean bool(String key, boolean defaultValue) {
        declared.put(key, Boolean.toString(defaultValue));
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
        return list(key, List.of());
    }

    /** A comma-separated list; {@code defaultValue} when unset. */
    public List<String> list(String key, List<String> defaultValue) {
        declared.put(key, defaultValue.isEmpty() ? null : String.join(",", defaultValue));
        String value = raw(key);
        if (value == null) {
            return defaultValue;
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
        declared.putIfAbsent(prefix + PASS_THROUGH, null);
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

    /**
     * Every key read so far, in first-read order, with the default it was read with: null for none,
     * {@link #REQUIRED} for a required key, {@code <prefix>}{@link #PASS_THROUGH} for a pass-through prefix.
     */
    public Map<String, String> declared() {
        return java.util.Collections.unmodifiableMap(declared);
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
