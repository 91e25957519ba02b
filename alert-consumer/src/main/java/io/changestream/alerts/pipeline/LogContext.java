package io.changestream.alerts.pipeline;

import java.util.Map;
import org.slf4j.MDC;

/**
 * The log context (MDC: {@code record}, {@code eventId}, {@code traceId}, {@code subscriptionId}) of the lane thread
 * that started a delivery, carried to the thread that completes it, so the lines logged there say which event they
 * belong to (decision 1505).
 */
record LogContext(Map<String, String> fields) {

    /** The calling thread's context now. */
    static LogContext capture() {
        Map<String, String> now = MDC.getCopyOfContextMap();
        return new LogContext(now == null ? Map.of() : Map.copyOf(now));
    }

    /** Runs {@code work} with this context, then restores the thread's own. */
    void run(Runnable work) {
        Map<String, String> before = MDC.getCopyOfContextMap();
        MDC.setContextMap(fields);
        try {
            work.run();
        } finally {
            if (before == null) {
                MDC.clear();
            } else {
                MDC.setContextMap(before);
            }
        }
    }
}
