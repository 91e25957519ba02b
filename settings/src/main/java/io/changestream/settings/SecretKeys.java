package io.changestream.settings;

import java.util.Locale;

/**
 * The one rule every service uses to decide which setting or Kafka client property holds a secret — its value is
 * never printed, logged, exposed in a metric or returned by an API — and the text shown instead. A declared
 * {@link Setting} is secret when marked {@link Setting#secret()} or when its key says so; a pass-through client
 * property when its key says so.
 */
public final class SecretKeys {

    /** Shown instead of a secret value. */
    public static final String MASK = "******";

    private SecretKeys() {
    }

    /**
     * True for keys (settings, client properties, config components) that name passwords, secrets, tokens,
     * credentials, JAAS configs or keys ({@code ssl.key}, {@code apiKey}); not counts or choices that only name
     * them ({@code limits.maxRunsPerToken}, {@code groupByKey}).
     */
    public static boolean isSecret(String key) {
        if (key.endsWith("PerToken") || key.endsWith("ByKey")) {
            return false; // a count or a choice named after a token or key (limits.maxRunsPerToken)
        }
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("token") || k.contains("jaas")
                || k.contains("credential") || k.endsWith("key");
    }

    /** {@code value} as it may be shown under {@code key}: {@link #MASK} for a secret key. */
    public static String shown(String key, Object value) {
        return isSecret(key) ? MASK : String.valueOf(value);
    }
}
