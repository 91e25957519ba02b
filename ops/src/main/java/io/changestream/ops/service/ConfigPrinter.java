package io.changestream.ops.service;

import java.lang.reflect.RecordComponent;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Flattens a service's validated config record (nested records included) into {@code path = value} lines, masking
 * every component whose name says it is a secret. What {@code --print-config} prints. Stateless.
 */
public final class ConfigPrinter {

    /** Shown instead of a secret value. */
    public static final String MASK = "******";

    private ConfigPrinter() {
    }

    /** The effective settings of {@code config}, sorted by path. */
    public static Map<String, String> flatten(Object config) {
        Map<String, String> out = new TreeMap<>();
        flatten("", config, out);
        return out;
    }

    private static void flatten(String path, Object value, Map<String, String> out) {
        if (value != null && value.getClass().isRecord()) {
            for (RecordComponent c : value.getClass().getRecordComponents()) {
                String name = path.isEmpty() ? c.getName() : path + "." + c.getName();
                Object v;
                try {
                    c.getAccessor().setAccessible(true);
                    v = c.getAccessor().invoke(value);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    v = "(unreadable: " + e.getClass().getSimpleName() + ")";
                }
                if (isSecret(c.getName())) {
                    out.put(name, v == null || v.toString().isEmpty() ? "(none)" : MASK);
                } else {
                    flatten(name, v, out);
                }
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                String key = String.valueOf(k);
                out.put(path + "." + key, isSecret(key) ? MASK : String.valueOf(v));
            });
            if (map.isEmpty()) {
                out.put(path, "{}");
            }
            return;
        }
        out.put(path, String.valueOf(value));
    }

    /** True for names of settings whose values must not be shown. */
    public static boolean isSecret(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.contains("password") || n.contains("secret") || n.contains("token") || n.contains("jaas")
                || n.contains("credential") || n.endsWith("key") && !n.endsWith("bykey");
    }
}
