package io.changestream.alerts.destination.http;

import io.changestream.alerts.destination.DeliveryResult;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Maps an HTTP status to an outcome: 2xx delivered; 408, 429 and 5xx retry (honouring {@code Retry-After}, seconds
 * or an HTTP date, capped); every other status permanent. Stateless; any thread.
 */
public final class HttpOutcomes {

    private HttpOutcomes() {
    }

    /**
     * The outcome of a response.
     *
     * @param status     the HTTP status
     * @param retryAfter the {@code Retry-After} header, or null
     * @param body       the start of the response body, for the reason (may be empty)
     */
    public static DeliveryResult classify(int status, String retryAfter, String body, Clock clock, Duration cap) {
        if (status >= 200 && status < 300) {
            return DeliveryResult.delivered();
        }
        String reason = "HTTP " + status + (body == null || body.isBlank() ? "" : ": " + body.strip());
        if (status == 408 || status == 429 || status >= 500) {
            return DeliveryResult.retry(retryAfter(retryAfter, clock, cap), reason);
        }
        return DeliveryResult.permanent(reason);
    }

    /** The wait a {@code Retry-After} value asks for, capped; null when absent or unreadable. */
    static Duration retryAfter(String value, Clock clock, Duration cap) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Duration wait;
        String v = value.strip();
        try {
            wait = Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException notSeconds) {
            try {
                wait = Duration.between(clock.instant(),
                        ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
        if (wait.isNegative()) {
            return Duration.ZERO;
        }
        return wait.compareTo(cap) > 0 ? cap : wait;
    }
}
