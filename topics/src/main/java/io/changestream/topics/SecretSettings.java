package io.changestream.topics;

import java.util.Locale;

/**
 * The one rule every service uses to decide which setting or Kafka client property holds a secret: its value is
 * never printed, logged, exposed in a metric or returned by an API.
 */
public final class SecretSettings {

    private SecretSettings() {
    }

    /** True for keys that name passwords, secrets, tokens, credentials, JAAS configs or private keys. */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("token") || k.contains("jaas")
                || k.contains("credential") || k.endsWith(".key");
    }
}
