package io.changestream.runtime.internal;

import java.lang.reflect.Field;
import java.util.Map;
import org.slf4j.MDC;
import org.slf4j.spi.MDCAdapter;

/**
 * A lane worker's log context (decision 1505): the {@code record} key names the record being processed, and keys a
 * processor added are gone before the next record. Stateless: each thread has its own MDC, so one instance serves
 * every worker (a worker replaced after a timeout included).
 *
 * <p>The plain way, {@code MDC.put} then {@code MDC.clear()} per record, makes logback build a new map per record
 * (its {@code clear} drops the thread's map) and costs the no-op case about a fifth of a lane's CPU. With logback's
 * adapter this reads the size of the thread's own map after the call: when {@code record} is the only key, the map
 * stays and the next record's {@code put} replaces the value in place; anything else is cleared as before (decision
 * 1610). Any other adapter, or a logback whose map cannot be read, gets {@code put} and {@code clear} per record.
 */
final class RecordLogContext {

    /** MDC key of the record a lane works on: {@code topic-partition@offset} (JSON log field, docs/decisions/1505). */
    static final String MDC_RECORD = "record";

    /** The adapter's per-thread map (read only, never written here); null when not logback or not readable. */
    private static final ThreadLocal<Map<String, String>> LOGBACK_MAP = logbackMap(MDC.getMDCAdapter());

    private final ThreadLocal<Map<String, String>> threadMap;

    /** The context for the adapter the application logs with. */
    RecordLogContext() {
        this(LOGBACK_MAP);
    }

    /** {@code threadMap} null: the plain way (put, then clear), whatever the adapter. */
    RecordLogContext(ThreadLocal<Map<String, String>> threadMap) {
        this.threadMap = threadMap;
    }

    /** Whether the application's adapter allows keeping the map between records (logback's, readable). */
    static boolean keepsMap() {
        return LOGBACK_MAP != null;
    }

    /** Before a call: {@code record} names {@code coordinates}. */
    void enter(String coordinates) {
        MDC.put(MDC_RECORD, coordinates);
    }

    /**
     * After a call: keys the call added are gone. The {@code record} key may stay (it names the record just
     * processed) until the next {@link #enter} replaces it or {@link #clear} drops it.
     */
    void leave() {
        if (threadMap != null) {
            Map<String, String> map = threadMap.get();
            if (map == null || map.isEmpty() || map.size() == 1 && map.containsKey(MDC_RECORD)) {
                return;
            }
        }
        clear();
    }

    /** Before the worker waits, or logs outside a record: nothing in the thread's log context. */
    void clear() {
        MDC.clear();
    }

    /**
     * Logback's {@code LogbackMDCAdapter} keeps each thread's map in a {@code ThreadLocal} field
     * ({@code readWriteThreadLocalMap} since 1.3). Read reflectively, so neither a logback dependency nor a logback
     * version without it breaks the runtime: anything unexpected falls back to the plain way.
     */
    @SuppressWarnings("unchecked")
    static ThreadLocal<Map<String, String>> logbackMap(MDCAdapter adapter) {
        if (adapter == null || !"ch.qos.logback.classic.util.LogbackMDCAdapter".equals(adapter.getClass().getName())) {
            return null;
        }
        try {
            Field f = adapter.getClass().getDeclaredField("readWriteThreadLocalMap");
            f.setAccessible(true);
            return f.get(adapter) instanceof ThreadLocal<?> t ? (ThreadLocal<Map<String, String>>) t : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
