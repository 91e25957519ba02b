package io.changestream.alerts.destination.email;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * The SMTP server e-mail destinations send through ({@code smtp.*}). {@link #toString()} masks the password.
 *
 * @param host           {@link #HOST}; required (without it the service has no e-mail destinations)
 * @param port           {@link #PORT}
 * @param username       {@link #USERNAME}, or null for no authentication
 * @param password       {@link #PASSWORD} (never logged), or null
 * @param startTls       {@link #START_TLS}
 * @param from           {@link #FROM}; required
 * @param connectTimeout {@link #CONNECT_TIMEOUT}
 * @param timeout        {@link #TIMEOUT}: read/write timeout per SMTP command
 */
public record SmtpSettings(String host, int port, String username, String password, boolean startTls, String from,
                           Duration connectTimeout, Duration timeout) {

    public static final Setting<String> HOST = Setting.string("smtp.host")
            .doc("SMTP host; unset = no e-mail destinations");
    public static final Setting<Integer> PORT = Setting.integer("smtp.port").defaultsTo(587).between(1, 65_535)
            .doc("SMTP port");
    public static final Setting<String> USERNAME = Setting.string("smtp.username").doc("SMTP login");
    public static final Setting<String> PASSWORD = Setting.string("smtp.password").secret()
            .doc("SMTP password (secret)");
    public static final Setting<Boolean> START_TLS = Setting.bool("smtp.startTls").defaultsTo(true)
            .doc("require STARTTLS");
    public static final Setting<String> FROM = Setting.string("smtp.from")
            .doc("sender address (required with smtp.host)");
    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.duration("smtp.connectTimeout")
            .defaultsTo(Duration.ofSeconds(10)).positive().doc("SMTP connect timeout");
    public static final Setting<Duration> TIMEOUT = Setting.duration("smtp.timeout")
            .defaultsTo(Duration.ofSeconds(12)).positive().doc("SMTP read/write timeout per command");
    /** The SMTP server's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(HOST, PORT, USERNAME, PASSWORD, START_TLS, FROM,
            CONNECT_TIMEOUT, TIMEOUT);

    public SmtpSettings {
        HOST.check(host);
        PORT.check(port);
        FROM.check(from);
        CONNECT_TIMEOUT.check(connectTimeout);
        TIMEOUT.check(timeout);
    }

    /** The SMTP server {@code settings} name, or null when {@code smtp.host} is unset (no e-mail). */
    public static SmtpSettings from(SettingsReader settings) {
        String host = settings.get(HOST);
        if (host == null) {
            settings.accept(SETTINGS); // declared, so not unknown; unused without a host, as before
            return null;
        }
        return new SmtpSettings(host, settings.get(PORT), settings.get(USERNAME), settings.get(PASSWORD),
                settings.get(START_TLS), settings.get(FROM), settings.get(CONNECT_TIMEOUT), settings.get(TIMEOUT));
    }

    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
