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

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final ObjectName pattern;

    StreamingProbe(String connectorKind, String topicPrefix) {
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
            } catch (Exception e) {
                // unregistered between the query and the read: not connected
            }
        }
        return false;
    }

    private Set<ObjectName> names() {
        return server.queryNames(pattern, null);
    }
}
