package io.changestream.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The lane's log context with logback (the adapter the services ship, decision 1505), both the way that keeps the
 * thread's map between records and the plain put-and-clear: what a log line inside a call sees, and what the next
 * record's call sees after a processor added or removed keys.
 */
class RecordLogContextTest {

    @AfterEach
    void clean() {
        MDC.clear();
    }

    @Test
    void withLogbackTheThreadsMapIsReadSoItCanStay() {
        assertTrue(RecordLogContext.keepsMap(), "logback's adapter is recognised and its map readable");
    }

    @Test
    void keepingTheMapACallSeesOnlyItsRecordAndAddedKeysAreGoneForTheNext() {
        checkAcrossRecords(new RecordLogContext());
    }

    @Test
    void thePlainWaySeesTheSame() {
        checkAcrossRecords(new RecordLogContext(null));
    }

    private static void checkAcrossRecords(RecordLogContext log) {
        log.enter("t-0@1");
        assertEquals(Map.of(RecordLogContext.MDC_RECORD, "t-0@1"), MDC.getCopyOfContextMap());
        MDC.put("eventId", "e-1");
        log.leave();
        assertNull(MDC.get("eventId"), "a key the processor added is gone after its call");

        log.enter("t-0@2");
        assertEquals(Map.of(RecordLogContext.MDC_RECORD, "t-0@2"), MDC.getCopyOfContextMap());
        log.leave();

        log.enter("t-0@3");
        assertEquals(Map.of(RecordLogContext.MDC_RECORD, "t-0@3"), MDC.getCopyOfContextMap(),
                "a kept map names the new record, not the last one");
        MDC.remove(RecordLogContext.MDC_RECORD);
        MDC.put("subscriptionId", "s-1");
        log.leave();
        assertNull(MDC.get("subscriptionId"), "one foreign key in place of the record is cleared too");

        log.enter("t-0@4");
        log.leave();
        log.clear();
        Map<String, String> after = MDC.getCopyOfContextMap();
        assertTrue(after == null || after.isEmpty(), "nothing is left once the worker waits: " + after);
    }
}
