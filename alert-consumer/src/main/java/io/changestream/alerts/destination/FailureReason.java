package io.changestream.alerts.destination;

import java.util.Locale;

/**
 * Why a delivery attempt did not deliver, as a bounded label of the delivery meters ({@code reason}), as
 * Alertmanager labels its notification failures. Derived from the result alone; stateless.
 */
public enum FailureReason {
    /** Delivered: no failure. */
    NONE("none"),
    /** 401 or 403: the receiver refused the credentials. */
    AUTH_ERROR("authError"),
    /** 429, a {@code Retry-After} pause or the destination's own rate limit. */
    RATE_LIMITED("rateLimited"),
    /** Any other 4xx, or a request that could not be made (config, refused address, oversize body). */
    CLIENT_ERROR("clientError"),
    /** 5xx (and 408). */
    SERVER_ERROR("serverError"),
    /** Connect refused, host unknown, connection lost, TLS. */
    NETWORK("network"),
    /** No connection or no answer in time, or the request was cancelled while it ran. */
    TIMEOUT("timeout"),
    /** Not sent: the destination's bulkhead shed it or its circuit is open. */
    NOT_SENT("notSent");

    private final String label;

    FailureReason(String label) {
        this.label = label;
    }

    /** The meter label. */
    public String label() {
        return label;
    }

    /** The reason of a result. */
    public static FailureReason of(DeliveryResult result) {
        if (result.isDelivered()) {
            return NONE;
        }
        if (result.shed()) {
            return NOT_SENT;
        }
        String reason = result.reason() == null ? "" : result.reason();
        if (reason.startsWith("HTTP ")) {
            int status = status(reason);
            if (status == 401 || status == 403) {
                return AUTH_ERROR;
            }
            if (status == 429) {
                return RATE_LIMITED;
            }
            if (status == 408 || status >= 500) {
                return SERVER_ERROR;
            }
            return CLIENT_ERROR;
        }
        if (result.throttled()) {
            return RATE_LIMITED;
        }
        String lower = reason.toLowerCase(Locale.ROOT);
        if (lower.startsWith("no response") || lower.startsWith("connect timeout") || lower.startsWith("cancelled")
                || lower.startsWith("interrupted") || lower.contains("timeout")) {
            return TIMEOUT;
        }
        if (result.outcome() == DeliveryResult.Kind.PERMANENT) {
            return CLIENT_ERROR;
        }
        return NETWORK;
    }

    private static int status(String reason) {
        int end = 5;
        while (end < reason.length() && Character.isDigit(reason.charAt(end))) {
            end++;
        }
        try {
            return Integer.parseInt(reason.substring(5, end));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
