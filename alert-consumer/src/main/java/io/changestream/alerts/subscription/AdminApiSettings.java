package io.changestream.alerts.subscription;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.util.List;

/**
 * Settings of the admin API. {@link #toString()} masks the token.
 *
 * @param bearerToken     {@link #BEARER_TOKEN}: every request must carry it as {@code Authorization: Bearer <token>}
 * @param user            {@link #USER}
 * @param maxRequestBytes {@link #MAX_REQUEST_BYTES}: a subscription is a few KiB, and what is stored must stay under
 *                        Kafka's 1 MiB record limit; a larger body is a 413 naming the setting
 * @param quotas          what one caller can make the service hold or answer ({@code quota.*}, issue 21)
 */
public record AdminApiSettings(String bearerToken, String user, long maxRequestBytes, SubscriptionQuotas quotas) {

    public static final Setting<String> BEARER_TOKEN = Setting.string("admin.bearerToken").required().secret()
            .check(t -> t.length() >= 16, "must be at least 16 characters")
            .doc("bearer token of the admin API (required, >= 16 chars)");
    public static final Setting<String> USER = Setting.string("admin.user").defaultsTo("admin")
            .doc("name recorded as updatedBy");
    public static final Setting<Long> MAX_REQUEST_BYTES = Setting.number("admin.maxRequestBytes")
            .defaultsTo(256L * 1024).between(1_024, 900 * 1024).doc("largest HTTP request body; larger is a 413");
    /** The admin API's own settings (the quotas have theirs). */
    public static final List<Setting<?>> SETTINGS = List.of(BEARER_TOKEN, USER, MAX_REQUEST_BYTES);

    public AdminApiSettings {
        BEARER_TOKEN.check(bearerToken);
        user = user == null || user.isBlank() ? USER.defaultOrFail() : user;
        MAX_REQUEST_BYTES.check(maxRequestBytes);
        quotas = quotas == null ? SubscriptionQuotas.DEFAULTS : quotas;
    }

    /** With the default quotas. */
    public AdminApiSettings(String bearerToken, String user, long maxRequestBytes) {
        this(bearerToken, user, maxRequestBytes, SubscriptionQuotas.DEFAULTS);
    }

    /** With the default body limit. */
    public AdminApiSettings(String bearerToken, String user) {
        this(bearerToken, user, MAX_REQUEST_BYTES.defaultOrFail());
    }

    /** The admin API's settings and quotas from {@code settings}. */
    public static AdminApiSettings from(SettingsReader settings) {
        return new AdminApiSettings(settings.get(BEARER_TOKEN), settings.get(USER), settings.get(MAX_REQUEST_BYTES),
                SubscriptionQuotas.from(settings));
    }

    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
