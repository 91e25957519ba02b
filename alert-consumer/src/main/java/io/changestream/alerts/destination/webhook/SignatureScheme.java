package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.DestinationConfigException;
import java.util.Locale;

/**
 * How a webhook destination signs its requests ({@code config.signatureScheme}). Immutable.
 */
public enum SignatureScheme {
    /** The platform's {@code X-OM-Signature: sha256=<hex HMAC of the body>} only (the default). */
    OM,
    /** Standard Webhooks only: {@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature: v1,…}. */
    STANDARD,
    /** Both header sets, for receivers moving from one to the other. */
    BOTH;

    /** Whether the platform's header is sent. */
    public boolean signsOm() {
        return this != STANDARD;
    }

    /** Whether the Standard Webhooks headers are sent. */
    public boolean signsStandard() {
        return this != OM;
    }

    /**
     * The scheme a config value names ({@code om}, {@code standard}, {@code both}; null = {@link #OM}).
     *
     * @throws DestinationConfigException naming {@code config.signatureScheme}
     */
    public static SignatureScheme parse(String value) {
        if (value == null || value.isBlank()) {
            return OM;
        }
        try {
            return valueOf(value.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new DestinationConfigException("config.signatureScheme",
                    "must be om, standard or both, was " + value);
        }
    }
}
