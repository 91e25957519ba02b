package io.changestream.settings;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One setting of a service, declared once: its key, how its text parses, its default, its bounds, its meaning and
 * whether its value is a secret — the role Kafka's {@code ConfigDef.ConfigKey} and Debezium's {@code Field} play.
 * Reading ({@link SettingsReader#get}), validation with messages naming the key ({@link #check}), the README's
 * reference table ({@link SettingsReference}) and masked output ({@link #show}) all come from this declaration.
 * Immutable: every {@code with}-style method returns a new declaration.
 *
 * <pre>{@code
 * static final Setting<Integer> LANES = Setting.integer("runtime.lanes").defaultsTo(16).between(1, 4096)
 *         .doc("KeyBy lanes, each a FIFO with one processor thread");
 * }</pre>
 *
 * @param <T> the parsed value's type
 */
public final class Setting<T> {

    private final String key;
    private final Function<String, T> parse;
    private final Function<T, String> format;
    private final T defaultValue;
    private final String shownDefault;
    private final List<Check<T>> checks;
    private final String doc;
    private final boolean secret;
    private final boolean required;
    private final List<String> aliases;
    private final boolean emptyAllowed;

    private Setting(String key, Function<String, T> parse, Function<T, String> format, T defaultValue,
                    String shownDefault, List<Check<T>> checks, String doc, boolean secret, boolean required,
                    List<String> aliases, boolean emptyAllowed) {
        this.key = key;
        this.parse = parse;
        this.format = format;
        this.defaultValue = defaultValue;
        this.shownDefault = shownDefault;
        this.checks = List.copyOf(checks);
        this.doc = doc;
        this.secret = secret;
        this.required = required;
        this.aliases = List.copyOf(aliases);
        this.emptyAllowed = emptyAllowed;
    }

    /** A setting of type {@code T}: {@code parse} turns its trimmed text into a value, {@code format} back. */
    public static <T> Setting<T> of(String key, Function<String, T> parse, Function<T, String> format) {
        Objects.requireNonNull(key, "key");
        if (key.isBlank()) {
            throw new IllegalArgumentException("a setting needs a key");
        }
        return new Setting<>(key, Objects.requireNonNull(parse, "parse"), Objects.requireNonNull(format, "format"),
                null, null, List.of(), "", false, false, List.of(), false);
    }

    /** A text setting. */
    public static Setting<String> string(String key) {
        return of(key, Function.identity(), Function.identity());
    }

    /** A whole number that fits an {@code int}. */
    public static Setting<Integer> integer(String key) {
        return of(key, Setting::parseInt, String::valueOf);
    }

    /** A whole number. */
    public static Setting<Long> number(String key) {
        return of(key, Setting::parseLong, String::valueOf);
    }

    /** A decimal number. */
    public static Setting<Double> decimal(String key) {
        return of(key, text -> {
            try {
                return Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected a number");
            }
        }, String::valueOf);
    }

    /** {@code true} or {@code false} (any case); anything else is refused. */
    public static Setting<Boolean> bool(String key) {
        return of(key, text -> switch (text.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        }, String::valueOf);
    }

    /** A duration, ISO-8601 ({@code PT10S}) or a number of milliseconds; shown as ISO-8601. */
    public static Setting<Duration> duration(String key) {
        return of(key, Setting::parseDuration, Duration::toString);
    }

    /** A duration given (and shown) as a decimal number of seconds ({@code 0.5}). */
    public static Setting<Duration> seconds(String key) {
        return of(key, text -> {
            try {
                return Duration.ofNanos(new BigDecimal(text).movePointRight(9).longValueExact());
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("expected a number of seconds");
            }
        }, d -> BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString());
    }

    /** A duration given (and shown) as a whole number of milliseconds. */
    public static Setting<Duration> millis(String key) {
        return of(key, text -> Duration.ofMillis(parseLong(text)), d -> Long.toString(d.toMillis()));
    }

    /** A comma-separated list, blanks dropped; shown comma-separated. */
    public static Setting<List<String>> list(String key) {
        return of(key, text -> Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList(),
                values -> String.join(",", values));
    }

    /** One constant of {@code type}, by its name in any case. */
    public static <E extends Enum<E>> Setting<E> oneOf(String key, Class<E> type) {
        return of(key, text -> {
            for (E constant : type.getEnumConstants()) {
                if (constant.name().equalsIgnoreCase(text)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("expected one of " + Arrays.toString(type.getEnumConstants()));
        }, Enum::name);
    }

    /** One of {@code allowed} (any case), returned lower case; a value built in code is held to them too. */
    public static Setting<String> oneOf(String key, String... allowed) {
        List<String> names = List.of(allowed);
        String requirement = "must be one of " + String.join(", ", names);
        return of(key, text -> text.toLowerCase(Locale.ROOT), Function.identity()).check(names::contains, requirement);
    }

    /** An http(s) URL. */
    public static Setting<URI> httpUrl(String key) {
        return of(key, URI::create, URI::toString)
                .check(url -> "http".equals(url.getScheme()) || "https".equals(url.getScheme()),
                        "must be an http(s) URL");
    }

    /** This setting with a default, used when the setting is unset or blank. */
    public Setting<T> defaultsTo(T value) {
        return new Setting<>(key, parse, format, Objects.requireNonNull(value, "default of " + key), shownDefault,
                checks, doc, secret, required, aliases, emptyAllowed);
    }

    /**
     * This setting documented with {@code shown} as its default: for a default the code derives (from the host, from
     * another setting) and that therefore has no single value.
     */
    public Setting<T> showing(String shown) {
        return new Setting<>(key, parse, format, defaultValue, Objects.requireNonNull(shown, "shown"), checks, doc,
                secret, required, aliases, emptyAllowed);
    }

    /** This setting with the condition {@code ok}, described as {@code requirement} ("must be ..."). */
    public Setting<T> check(Predicate<? super T> ok, String requirement) {
        List<Check<T>> more = new ArrayList<>(checks);
        more.add(new Check<>(ok, requirement));
        return new Setting<>(key, parse, format, defaultValue, shownDefault, more, doc, secret, required, aliases,
                emptyAllowed);
    }

    /** This numeric setting bounded to {@code [min, max]}. */
    public Setting<T> between(long min, long max) {
        return check(v -> compare(v, min) >= 0 && compare(v, max) <= 0, "must be between " + min + " and " + max);
    }

    /** This numeric setting bounded below by {@code min}. */
    public Setting<T> atLeast(long min) {
        return check(v -> compare(v, min) >= 0, "must be at least " + min);
    }

    /** This duration or numeric setting bounded below by zero. */
    public Setting<T> notNegative() {
        return check(v -> sign(v) >= 0, "must not be negative");
    }

    /** This duration or numeric setting bounded below by zero, exclusive. */
    public Setting<T> positive() {
        return check(v -> sign(v) > 0, "must be positive");
    }

    /** This text setting refusing a blank value (given in code; a blank text read is unset). */
    public Setting<T> notBlank() {
        return check(v -> !v.toString().isBlank(), "must not be blank");
    }

    /** This text setting whose value must match {@code regex} whole. */
    public Setting<T> matching(String regex) {
        java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(regex);
        return check(v -> pattern.matcher(v.toString()).matches(), "must match " + regex);
    }

    /** {@code value} against {@code bound}; a decimal compares as one (NaN is beyond every bound). */
    private static int compare(Object value, long bound) {
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isNaN(d) ? Integer.MAX_VALUE : Double.compare(d, bound);
        }
        return Long.compare(((Number) value).longValue(), bound);
    }

    private static int sign(Object value) {
        if (value instanceof Duration d) {
            return d.isNegative() ? -1 : d.isZero() ? 0 : 1;
        }
        if (value instanceof Number n) {
            return Double.compare(n.doubleValue(), 0.0);
        }
        throw new IllegalStateException("a sign bound needs a duration or a number, was " + value.getClass());
    }

    /**
     * This text setting with the empty text as a value of its own (an empty topic prefix), not as "unset": a blank
     * value given is the empty string, not the default.
     */
    public Setting<T> emptyAllowed() {
        return new Setting<>(key, parse, format, defaultValue, shownDefault, checks, doc, secret, required, aliases,
                true);
    }

    /** Whether an empty value given is a value ({@link #emptyAllowed}). */
    public boolean allowsEmpty() {
        return emptyAllowed;
    }

    /** This setting with its meaning, as the reference table shows it. */
    public Setting<T> doc(String text) {
        return new Setting<>(key, parse, format, defaultValue, shownDefault, checks, Objects.requireNonNull(text),
                secret, required, aliases, emptyAllowed);
    }

    /** This setting marked secret: its value is never printed, logged or returned ({@link SecretKeys#MASK}). */
    public Setting<T> secret() {
        return new Setting<>(key, parse, format, defaultValue, shownDefault, checks, doc, true, required, aliases,
                emptyAllowed);
    }

    /** This setting marked required: unset (or blank) fails the read, naming the key. */
    public Setting<T> required() {
        return new Setting<>(key, parse, format, defaultValue, shownDefault, checks, doc, secret, true, aliases,
                emptyAllowed);
    }

    /** This setting also read under {@code otherKey} (an older spelling); the key itself wins when both are set. */
    public Setting<T> alias(String otherKey) {
        List<String> more = new ArrayList<>(aliases);
        more.add(otherKey);
        return new Setting<>(key, parse, format, defaultValue, shownDefault, checks, doc, secret, required, more,
                emptyAllowed);
    }

    public String key() {
        return key;
    }

    /** Other keys this setting is read under, oldest spelling last. */
    public List<String> aliases() {
        return aliases;
    }

    public String doc() {
        return doc;
    }

    /** Whether the value is never shown: marked {@link #secret()}, or its key says so ({@link SecretKeys}). */
    public boolean isSecret() {
        return secret || SecretKeys.isSecret(key);
    }

    public boolean isRequired() {
        return required;
    }

    /** The default, empty when the setting has none (required, or derived by the code). */
    public Optional<T> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** The default, which this setting must have; for declarations whose default code reads directly. */
    public T defaultOrFail() {
        if (defaultValue == null) {
            throw new IllegalStateException(key + " has no default");
        }
        return defaultValue;
    }

    /**
     * The default as the reference table shows it: the {@link #showing} text, else the formatted default,
     * {@value SettingsReference#REQUIRED} for a required setting and {@value SettingsReference#NONE} for none.
     */
    public String shownDefault() {
        if (shownDefault != null) {
            return shownDefault;
        }
        if (defaultValue != null) {
            String text = format.apply(defaultValue);
            return text.isEmpty() ? SettingsReference.NONE : text;
        }
        return required ? SettingsReference.REQUIRED : SettingsReference.NONE;
    }

    /**
     * Parses {@code text} (trimmed) and checks the value; a value that does not parse or breaks a bound fails with a
     * {@link SettingException} naming the key and the text.
     */
    public T parse(String text) {
        T value;
        try {
            value = parse.apply(text.trim());
        } catch (RuntimeException e) {
            throw new SettingException(key, key + " does not parse: '" + show(text) + "' ("
                    + Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName()) + ")", e);
        }
        return check(value);
    }

    /** {@code value} if it keeps every bound of this setting; else a {@link SettingException} naming the key. */
    public T check(T value) {
        if (value == null) {
            throw new SettingException(key, key + " is required");
        }
        for (Check<T> c : checks) {
            if (!c.ok().test(value)) {
                throw new SettingException(key, key + " " + c.requirement() + ", was " + show(format.apply(value)));
            }
        }
        return value;
    }

    /**
     * Fails naming this setting ("{@code <key> <requirement>}") unless {@code ok}: a rule between settings, checked
     * where both values are known.
     */
    public void require(boolean ok, String requirement) {
        if (!ok) {
            throw new SettingException(key, key + " " + requirement);
        }
    }

    /** {@code value} as text, unmasked: to hand a value on as configuration, never to show it. */
    public String text(T value) {
        return format.apply(value);
    }

    /** {@code value} formatted for output: {@link SecretKeys#MASK} for a secret, {@code (none)} when unset. */
    public String format(T value) {
        if (value == null) {
            return "(none)";
        }
        return show(format.apply(value));
    }

    private String show(String text) {
        return isSecret() ? SecretKeys.MASK : text;
    }

    /**
     * Every setting of {@code groups} in order, one list; a key declared twice fails (two declarations of one key
     * would be two defaults).
     */
    @SafeVarargs
    public static List<Setting<?>> all(List<? extends Setting<?>>... groups) {
        List<Setting<?>> out = new ArrayList<>();
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (List<? extends Setting<?>> group : groups) {
            for (Setting<?> setting : group) {
                if (!keys.add(setting.key())) {
                    throw new IllegalStateException("setting " + setting.key() + " is declared twice");
                }
                out.add(setting);
            }
        }
        return List.copyOf(out);
    }

    /** Settings are equal when their keys are: a redeclaration (another default) stands for the same setting. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Setting<?> that && key.equals(that.key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "Setting[" + key + "]";
    }

    static Duration parseDuration(String text) {
        if (!text.isEmpty() && Character.isDigit(text.charAt(0))) {
            return Duration.ofMillis(parseLong(text));
        }
        try {
            return Duration.parse(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected ISO-8601 (PT10S) or milliseconds");
        }
    }

    private static int parseInt(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number");
        }
    }

    private static long parseLong(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a whole number");
        }
    }

    private record Check<T>(Predicate<? super T> ok, String requirement) {
    }
}
