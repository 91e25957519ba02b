package io.changestream.settings;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings reference a module's README shows, derived from its declarations: key → default as shown, in
 * declaration order. Pass-through prefixes ({@code kafka.*}) appear as {@code <prefix><client property>}.
 */
public final class SettingsReference {

    /** The default cell of a setting without one. */
    public static final String NONE = "—";
    /** The default cell of a required setting. */
    public static final String REQUIRED = "(required)";
    /** Key suffix shown for a pass-through prefix. */
    public static final String PASS_THROUGH = "<client property>";

    private SettingsReference() {
    }

    /** Key → shown default of every declaration (aliases get a row of their own). */
    public static Map<String, String> defaults(Collection<? extends Setting<?>> declared) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Setting<?> setting : declared) {
            out.put(setting.key(), setting.shownDefault());
            for (String alias : setting.aliases()) {
                out.put(alias, setting.shownDefault());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The row key of the pass-through {@code prefix} ({@code kafka.} → {@code kafka.<client property>}). */
    public static String passThrough(String prefix) {
        return prefix + PASS_THROUGH;
    }
}
