package io.changestream.alerts.subscription;

import java.util.Objects;

/**
 * Settings of the admin API. {@link #toString()} masks the token.
 *
 * @param bearerToken     the token every request must carry as {@code Authorization: Bearer <token>}; required, at
 *                        least 16 characters
 * @param user            the name recorded as {@code updatedBy} (default {@code admin})
 * @param maxRequestBytes largest request body accepted (setting {@code admin.maxRequestBytes}, default
 *                        {@value #DEFAULT_MAX_REQUEST_BYTES}: a subscription is a few KiB, and what is stored must
 *                        stay under Kafka's 1 MiB record limit); a larger one is a 413 naming the setting
 * @param quotas          what one caller can make the service hold or answer ({@code quota.*}, issue 21)
 */
public record AdminApiSettings(String bearerToken, String user, long maxRequestBytes, SubscriptionQuotas quotas) {

    /** Default of {@code admin.maxRequestBytes}: 256 KiB. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 256 * 1024;

    public AdminApiSettings {
        Objects.requireNonNull(bearerToken, "admin.bearerToken is required");
        if (bearerToken.length() < 16) {
            throw new IllegalArgumentException("admin.bearerToken must be at least 16 characters");
        }
        user = user == null || user.isBlank() ? "admin" : user;
        if (maxRequestBytes < 1_024 || maxRequestBytes > 900 * 1024) {
            throw new IllegalArgumentException("admin.maxRequestBytes must be between 1024 and 921600 (under Kafka's "
                    + "record limit), was " + maxRequestBytes);
        }
        quotas = quotas == null ? SubscriptionQuotas.DEFAULTS : quotas;
    }

    /** With the default quotas. */
    public AdminApiSettings(String bearerToken, String user, long maxRequestBytes) {
        this(bearerToken, user, maxRequestBytes, SubscriptionQuotas.DEFAULTS);
    }

    /** With the default body limit. */
    public AdminApiSettings(String bearerToken, String user) {
        this(bearerToken, user, DEFAULT_MAX_REQUEST_BYTES);
    }

    @Override
    public String toString() {
        return "AdminApiSettings[bearerToken=********, user=" + user + ", maxRequestBytes=" + maxRequestBytes + ", quotas="
                + quotas + "]";
    }
}
