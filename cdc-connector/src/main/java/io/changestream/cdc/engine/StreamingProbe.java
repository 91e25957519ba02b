package io.changestream.cdc.engine;

import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Reads Debezium's streaming metrics MBean ({@code debezium.<connector>:type=connector-metrics,context=streaming,
 * server=<topic.prefix>}) to tell whether the engine is connected to the database log. The prefix is a
 * {@code connector.name}, which needs no ObjectName quoting. Any thread.
 */
final class StreamingProbe {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamingProbe.class);

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName pattern;
    private final Runnable onError;
    private final java.util.concurrent.atomic.AtomicBoolean logged = new java.util.concurrent.atomic.AtomicBoolean();

    /** {@code onError} counts a read that failed for another reason than the MBean going away. */
    StreamingProbe(String connectorKind, String topicPrefix, Runnable onError) {
        this.onError = onError;
        try {
            this.pattern = new ObjectName("debezium." + connectorKind
                    + ":type=connector-metrics,context=streaming,server=" + topicPrefix + ",*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("bad metrics name for " + topicPrefix, e);
        }
    }

    /** True when a streaming MBean of this connector reports {@code Connected}. */
    boolean connected() {
        for (ObjectName name : names()) {
            try {
                if (Boolean.TRUE.equals(server.getAttribute(name, "Connected"))) {
                    return true;
                }
            } catch (javax.management.InstanceNotFoundException e) {
                // unregistered between the query and the read (the engine stopped): not connected
            } catch (Exception e) {
                onError.run();
                if (logged.compareAndSet(false, true)) {
                    LOG.warn("cannot read {} of {} (logged once; counted as cdc_errors_total{{kind=probe}}): {}",
                            "Connected", name, e.toString());
                }
            }
        }
        return false;
    }

    private Set<ObjectName> names() {
        return server.queryNames(pattern, null);
    }
}
