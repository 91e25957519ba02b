package io.changestream.settings;

import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * A validated config record as text, every secret masked by the one rule of {@link SecretKeys}: a component or a
 * map key (a Kafka client property) whose name says it holds a secret shows {@link SecretKeys#MASK}. What a config's
 * {@code toString()} and a service's {@code --print-config} print. Stateless.
 */
public final class ConfigText {

    private ConfigText() {
    }

    /** {@code Name[component=value, …]} like a record's own {@code toString()}, secrets masked. */
    public static String describe(Record config) {
        return describe(config, key -> !SecretKeys.isSecret(key));
    }

    /**
     * As {@link #describe(Record)}, but of a map component (client properties) only the keys {@code shownKeys} names
     * show their values: an allow-list, for properties whose secrets no name rule can foresee (a consumer's
     * {@code basic.auth.user.info}).
     */
    public static String describe(Record config, java.util.Set<String> shownKeys) {
        return describe(config, shownKeys::contains);
    }

    private static String describe(Record config, java.util.function.Predicate<String> shownKey) {
        StringJoiner text = new StringJoiner(", ", config.getClass().getSimpleName() + "[", "]");
        for (RecordComponent c : config.getClass().getRecordComponents()) {
            Object value = read(c, config);
            text.add(c.getName() + "=" + (SecretKeys.isSecret(c.getName()) ? masked(value) : shown(value, shownKey)));
        }
        return text.toString();
    }

    /** The effective settings of {@code config} (nested records flattened) as {@code path → value}, sorted by path. */
    public static Map<String, String> flatten(Object config) {
        Map<String, String> out = new TreeMap<>();
        flatten("", config, out);
        return out;
    }

    private static void flatten(String path, Object value, Map<String, String> out) {
        if (value instanceof Record record) {
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                String name = path.isEmpty() ? c.getName() : path + "." + c.getName();
                Object v = read(c, record);
                if (SecretKeys.isSecret(c.getName())) {
                    out.put(name, masked(v));
                } else {
                    flatten(name, v, out);
                }
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> out.put(path + "." + k, SecretKeys.shown(String.valueOf(k), v)));
            if (map.isEmpty()) {
                out.put(path, "{}");
            }
            return;
        }
        out.put(path, String.valueOf(value));
    }

    private static Object shown(Object value, java.util.function.Predicate<String> shownKey) {
        if (value instanceof Map<?, ?> map) {
            Map<String, String> masked = new TreeMap<>();
            map.forEach((k, v) -> masked.put(String.valueOf(k), shownKey.test(String.valueOf(k)) ? String.valueOf(v)
                    : SecretKeys.MASK));
            return masked;
        }
        return value;
    }

    private static String masked(Object value) {
        return value == null || value.toString().isEmpty() ? "(none)" : SecretKeys.MASK;
    }

    private static Object read(RecordComponent c, Record record) {
        try {
            c.getAccessor().setAccessible(true);
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(unreadable: " + e.getClass().getSimpleName() + ")";
        }
    }
}
