package io.changestream.alerts.subscription;

import java.util.Objects;

/**
 * Settings of the admin API. {@link #toString()} masks the token.
 *
 * @param bearerToken the token every request must carry as {@code Authorization: Bearer <token>}; required, at
 *                    least 16 characters
 * @param user        the name recorded as {@code updatedBy} (default {@code admin})
 */
public record AdminApiSettings(String bearerToken, String user) {

    public AdminApiSettings {
        Objects.requireNonNull(bearerToken, "admin.bearerToken is required");
        if (bearerToken.length() < 16) {
            throw new IllegalArgumentException("admin.bearerToken must be at least 16 characters");
        }
        user = user == null || user.isBlank() ? "admin" : user;
    }

    @Override
    public String toString() {
        return "AdminApiSettings[bearerToken=********, user=" + user + "]";
    }
}
