package io.changestream.alerts.destination.email;

import io.changestream.alerts.destination.Secrets;
import java.time.Duration;
import java.util.Objects;

/**
 * The SMTP server e-mail destinations send through. {@link #toString()} masks the password.
 *
 * @param host           SMTP host; required
 * @param port           SMTP port (default 587)
 * @param username       login, or null for no authentication
 * @param password       password (never logged), or null
 * @param startTls       require STARTTLS (default true)
 * @param from           sender address; required
 * @param connectTimeout connect timeout (default 10 s)
 * @param timeout        read/write timeout per SMTP command (default 12 s)
 */
public record SmtpSettings(String host, int port, String username, String password, boolean startTls, String from,
                           Duration connectTimeout, Duration timeout) {

    public SmtpSettings {
        Objects.requireNonNull(host, "smtp.host is required");
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("smtp.port must be in [1, 65535], was " + port);
        }
        Objects.requireNonNull(from, "smtp.from is required");
        Objects.requireNonNull(connectTimeout, "smtp.connectTimeout is required");
        Objects.requireNonNull(timeout, "smtp.timeout is required");
        if (connectTimeout.isNegative() || connectTimeout.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("smtp.connectTimeout and smtp.timeout must be > 0");
        }
    }

    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", username=" + username + ", password="
                + (password == null ? "none" : Secrets.MASK) + ", startTls=" + startTls + ", from=" + from
                + ", connectTimeout=" + connectTimeout + ", timeout=" + timeout + "]";
    }
}
