package io.changestream.alerts.destination.limits;

import java.time.Duration;
import java.util.Locale;

/**
 * A token-bucket limit: {@code requests} per {@code period}, refilled continuously, holding at most one period's
 * worth (so {@code 5000/min} allows a burst of 5,000, then 83 per second). Written {@code <requests>/<unit>} with
 * unit {@code s}, {@code min} or {@code h}, or {@code off}. Immutable.
 *
 * @param requests requests per period (0 with {@link #OFF}: unlimited)
 * @param period   the period
 */
public record RateLimit(int requests, Duration period) {

    /** No limit. */
    public static final RateLimit OFF = new RateLimit(0, Duration.ofSeconds(1));

    public RateLimit {
        if (requests < 0) {
            throw new IllegalArgumentException("rate limit requests must be >= 0, was " + requests);
        }
        if (period == null || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("rate limit period must be > 0, was " + period);
        }
    }

    /** Whether this limits at all. */
    public boolean limits() {
        return requests > 0;
    }

    /** Tokens added per nanosecond. */
    double tokensPerNano() {
        return requests / (double) period.toNanos();
    }

    /**
     * Reads {@code 120/min}, {@code 1/s}, {@code 1000/h} or {@code off}.
     *
     * @throws IllegalArgumentException saying what is expected
     */
    public static RateLimit parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("off")) {
            return OFF;
        }
        int slash = t.indexOf('/');
        if (slash < 1) {
            throw new IllegalArgumentException("expected <requests>/<s|min|h> or off, was '" + text + "'");
        }
        int requests;
        try {
            requests = Integer.parseInt(t.substring(0, slash).strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected <requests>/<s|min|h> or off, was '" + text + "'");
        }
        if (requests < 1) {
            throw new IllegalArgumentException("requests must be >= 1 (or off), was " + requests);
        }
        Duration period = switch (t.substring(slash + 1).strip()) {
            case "s" -> Duration.ofSeconds(1);
            case "min" -> Duration.ofMinutes(1);
            case "h" -> Duration.ofHours(1);
            default -> throw new IllegalArgumentException("unit must be s, min or h, was '" + text + "'");
        };
        return new RateLimit(requests, period);
    }

    @Override
    public String toString() {
        if (!limits()) {
            return "off";
        }
        String unit = period.equals(Duration.ofSeconds(1)) ? "s" : period.equals(Duration.ofMinutes(1)) ? "min"
                : period.equals(Duration.ofHours(1)) ? "h" : period.toString();
        return requests + "/" + unit;
    }
}
