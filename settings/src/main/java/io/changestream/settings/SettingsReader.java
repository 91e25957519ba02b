package io.changestream.settings;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The flat {@code key=value} settings of one service, read through {@link Setting} declarations. Sources, later ones
 * winning: a properties file (or any map, e.g. a Kafka Connect config), then environment variables, then system
 * properties — one convention for every service (decision 2701):
 * <ul>
 *   <li>environment: {@code <PREFIX><KEY>}, the key upper case with dots and camel-case humps as underscores
 *       ({@code ALERTS_ADMIN_BEARER_TOKEN} → {@code admin.bearerToken}); matched against the declared keys ignoring
 *       case, dots and underscores, so {@code LOG_TAILER_STREAM_MAXACTIVERUNS} finds {@code stream.maxActiveRuns}
 *       too. A name that matches no declared or given key is a pass-through key: lower case, underscores as dots
 *       ({@code CS_CDC_KAFKA_SASL_JAAS_CONFIG} → {@code kafka.sasl.jaas.config});</li>
 *   <li>system properties: {@code <prefix>.<key>}, the prefix the environment's in lower case with underscores as
 *       dots ({@code -Dalerts.http.port=9191}, {@code -Dcs.cdc.http.port=9191}).</li>
 * </ul>
 * Remembers which keys were read, so {@link #refuseUnknown} can refuse a misspelt key. Not thread-safe: used while
 * one config is built.
 */
public final class SettingsReader {

    private final Map<String, String> values;
    private final Set<String> read = new HashSet<>();

    private SettingsReader(Map<String, String> values) {
        this.values = values;
    }

    /** A reader of {@code values} as given (a file's entries, a Connect config): no environment, no properties. */
    public static SettingsReader of(Map<String, ?> values) {
        Map<String, String> text = new TreeMap<>();
        values.forEach((k, v) -> {
            if (v != null) {
                text.put(k, v.toString().trim());
            }
        });
        return new SettingsReader(text);
    }

    /**
     * A reader of {@code file} overridden by {@code env}'s {@code envPrefix} variables and then by the system
     * properties {@code system} under the same prefix; {@code declared} are the keys the environment names.
     */
    public static SettingsReader layered(Map<String, ?> file, String envPrefix, Map<String, String> env,
                                         Properties system, Collection<? extends Setting<?>> declared) {
        SettingsReader reader = of(file);
        Map<String, String> values = reader.values;
        env.forEach((name, value) -> {
            if (name.startsWith(envPrefix) && name.length() > envPrefix.length() && value != null) {
                values.put(keyOf(name.substring(envPrefix.length()), declared, values.keySet()), value.trim());
            }
        });
        String propertyPrefix = propertyPrefix(envPrefix);
        for (String name : system.stringPropertyNames()) {
            if (name.startsWith(propertyPrefix) && name.length() > propertyPrefix.length()) {
                values.put(name.substring(propertyPrefix.length()), system.getProperty(name).trim());
            }
        }
        return reader;
    }

    /** The system property prefix of environment prefix {@code envPrefix} ({@code CS_CDC_} → {@code cs.cdc.}). */
    public static String propertyPrefix(String envPrefix) {
        return envPrefix.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /**
     * The key the environment variable {@code <prefix>name} sets: a declared key (or alias) or a given key equal to it
     * ignoring case, dots and underscores; else {@code name} lower case with underscores as dots.
     */
    public static String keyOf(String name, Collection<? extends Setting<?>> declared, Collection<String> given) {
        String wanted = normalize(name);
        for (Setting<?> setting : declared) {
            if (normalize(setting.key()).equals(wanted)) {
                return setting.key();
            }
            for (String alias : setting.aliases()) {
                if (normalize(alias).equals(wanted)) {
                    return alias;
                }
            }
        }
        for (String key : given) {
            if (normalize(key).equals(wanted)) {
                return key;
            }
        }
        return name.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /**
     * The environment variable that sets {@code key} under {@code envPrefix} ({@code admin.bearerToken} →
     * {@code ALERTS_ADMIN_BEARER_TOKEN}).
     */
    public static String envName(String envPrefix, String key) {
        return envPrefix + key.replaceAll("([a-z0-9])([A-Z])", "$1_$2").replace('.', '_').replace('-', '_')
                .toUpperCase(Locale.ROOT);
    }

    private static String normalize(String key) {
        return key.toLowerCase(Locale.ROOT).replace(".", "").replace("_", "").replace("-", "");
    }

    /** Reads a properties file (UTF-8), values trimmed; a missing or unreadable file is an {@link IOException}. */
    public static Map<String, String> readFile(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, String> out = new TreeMap<>();
        properties.stringPropertyNames().forEach(k -> out.put(k, properties.getProperty(k).trim()));
        return out;
    }

    /**
     * The value of {@code setting}: the given one, parsed and checked, else its default; unset and without a default
     * it is null, unless the setting is required, which fails naming the key.
     */
    public <T> T get(Setting<T> setting) {
        Optional<T> given = find(setting);
        if (given.isPresent()) {
            return given.get();
        }
        if (setting.isRequired()) {
            throw new SettingException(setting.key(), setting.key() + " is required");
        }
        return setting.defaultValue().orElse(null);
    }

    /** The value of {@code setting} if one is given (not its default), parsed and checked. */
    public <T> Optional<T> find(Setting<T> setting) {
        String text = raw(setting);
        return text == null ? Optional.empty() : Optional.of(setting.parse(text));
    }

    /**
     * Marks {@code declared} read without parsing them: settings of a part that is off in this configuration (the SMTP
     * server without {@code smtp.host}), whose values are neither used nor refused as unknown.
     */
    public void accept(Collection<? extends Setting<?>> declared) {
        for (Setting<?> setting : declared) {
            read.add(setting.key());
            read.addAll(setting.aliases());
        }
    }

    /** Whether a non-blank value is given for {@code setting} (under its key or an alias). */
    public boolean isSet(Setting<?> setting) {
        return raw(setting) != null;
    }

    private String raw(Setting<?> setting) {
        String text = raw(setting.key(), setting.allowsEmpty());
        for (String alias : setting.aliases()) {
            String other = raw(alias, setting.allowsEmpty());
            if (text == null) {
                text = other;
            }
        }
        return text;
    }

    private String raw(String key, boolean emptyIsAValue) {
        read.add(key);
        String text = values.get(key);
        return text == null || text.isEmpty() && !emptyIsAValue ? null : text;
    }

    /**
     * Every key under {@code prefix} that no declared read asked for, without the prefix, in key order; marks them
     * read. Call it after the declared keys under the same prefix were read ({@code kafka.*} client properties).
     */
    public Map<String, String> passThrough(String prefix) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            String key = e.getKey();
            if (key.startsWith(prefix) && key.length() > prefix.length() && !read.contains(key)) {
                read.add(key);
                if (!e.getValue().isEmpty()) {
                    out.put(key.substring(prefix.length()), e.getValue());
                }
            }
        }
        return out;
    }

    /** Fails naming every given key no read asked for (a misspelt setting would otherwise be ignored). */
    public void refuseUnknown(String whereListed) {
        Set<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(read);
        if (!unknown.isEmpty()) {
            throw new SettingException("*", (unknown.size() == 1 ? "unknown setting " : "unknown settings ")
                    + String.join(", ", unknown) + " (see " + whereListed + ")");
        }
    }
}
