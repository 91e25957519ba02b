package io.changestream.ops;

import java.util.Locale;
import java.util.Map;

/**
 * How every service started by the launcher writes its log lines: {@code text} (the default, also in {@code dev})
 * or {@code json} (one JSON object per line by logstash-logback-encoder, every MDC key a field: {@code eventId},
 * {@code subscriptionId}, {@code record} = topic-partition@offset, {@code runId}). Chosen by the environment variable
 * {@value #ENV} or the system property {@value #PROPERTY}; {@code ops/src/main/resources/logback.xml} picks the
 * appender of that name. Resolved once, by {@code Main}, before the first log line.
 */
public final class LogFormat {

    /** Environment variable that selects the format. */
    public static final String ENV = "CHANGESTREAM_LOG_FORMAT";
    /** System property that selects it (wins over the variable); logback.xml reads it. */
    public static final String PROPERTY = "changestream.log.format";

    private LogFormat() {
    }

    /**
     * The format named by {@code property} or else {@code env}, validated.
     *
     * @throws UsageException naming the setting for anything but text or json
     */
    public static String resolve(String property, Map<String, String> env) {
        String value = property != null && !property.isBlank() ? property : env.get(ENV);
        String from = property != null && !property.isBlank() ? PROPERTY : ENV;
        if (value == null || value.isBlank()) {
            return "text";
        }
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (!v.equals("text") && !v.equals("json")) {
            throw new UsageException(from + "='" + value + "' is not a log format: use text or json");
        }
        return v;
    }
}
