package io.changestream.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The launcher's real {@code logback.xml} in both formats: {@code json} gives one JSON object per line with the MDC
 * keys of the processing paths as fields, {@code text} (the default) the readable line; a wrong value is refused.
 */
class LogFormatTest {

    /** Configures a fresh logback context from the shipped file with {@code format}, logs, returns stderr. */
    private static String logWith(String format, Map<String, String> mdc, String message) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(MDC.getMDCAdapter());
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            if (format != null) {
                context.putProperty(LogFormat.PROPERTY, format);
            }
            context.putProperty("changestream.log.level", "INFO");
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
            Logger log = context.getLogger("io.changestream.alerts.pipeline.AlertProcessor");
            mdc.forEach(MDC::put);
            try {
                log.info(message);
            } finally {
                MDC.clear();
            }
        } finally {
            context.stop();
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void jsonIsOneObjectPerLineWithTheProcessingContextAsFields() throws Exception {
        String out = logWith("json", Map.of("eventId", "e-1", "subscriptionId", "s-1", "record", "cs.changes-2@41",
                "runId", "r-9"), "delivered \"quoted\"\nsecond line");
        List<String> lines = out.lines().toList();
        assertEquals(1, lines.size(), out);
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertEquals("delivered \"quoted\"\nsecond line", line.path("message").asText());
        assertEquals("INFO", line.path("level").asText());
        assertEquals("io.changestream.alerts.pipeline.AlertProcessor", line.path("logger_name").asText());
        assertEquals("e-1", line.path("eventId").asText());
        assertEquals("s-1", line.path("subscriptionId").asText());
        assertEquals("cs.changes-2@41", line.path("record").asText());
        assertEquals("r-9", line.path("runId").asText());
        assertTrue(line.path("@timestamp").asText().endsWith("Z"), line.toString());
    }

    @Test
    void textIsTheDefault() throws Exception {
        String out = logWith(null, Map.of("eventId", "e-1"), "hello");
        assertTrue(out.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[[^]]+] .*AlertProcessor - hello\\R"), out);
        assertEquals("text", LogFormat.resolve(null, Map.of()));
    }

    @Test
    void theSettingIsValidatedAndThePropertyWins() {
        assertEquals("json", LogFormat.resolve(null, Map.of(LogFormat.ENV, " JSON ")));
        assertEquals("text", LogFormat.resolve("text", Map.of(LogFormat.ENV, "json")));
        UsageException e = assertThrows(UsageException.class,
                () -> LogFormat.resolve(null, Map.of(LogFormat.ENV, "yaml")));
        assertTrue(e.getMessage().contains("CHANGESTREAM_LOG_FORMAT='yaml'"), e.getMessage());
    }

    /**
     * Issue 23: an appender defined and not referenced made logback print its whole configuration status (29 lines)
     * at every start of the launcher. The shipped file must configure without a warning in either format.
     */
    @Test
    void theShippedConfigurationHasNoWarningSoLogbackPrintsNoStatus() throws Exception {
        for (String format : new String[] {null, "text", "json"}) {
            LoggerContext context = new LoggerContext();
            try {
                if (format != null) {
                    context.putProperty(LogFormat.PROPERTY, format);
                }
                JoranConfigurator configurator = new JoranConfigurator();
                configurator.setContext(context);
                configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
                List<String> warnings = context.getStatusManager().getCopyOfStatusList().stream()
                        .filter(st -> st.getEffectiveLevel() >= ch.qos.logback.core.status.Status.WARN)
                        .map(Object::toString).toList();
                assertEquals(List.of(), warnings, "format " + format);
                int appenders = 0;
                for (var it = context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders(); it.hasNext();
                     it.next()) {
                    appenders++;
                }
                assertEquals(1, appenders, "one appender on the root, format " + format);
            } finally {
                context.stop();
            }
        }
    }
}
