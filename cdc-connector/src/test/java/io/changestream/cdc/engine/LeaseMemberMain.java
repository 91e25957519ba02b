package io.changestream.cdc.engine;

import io.changestream.cdc.metrics.CdcMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;

/**
 * A lease member alone in a JVM, for tests that SIGKILL a member: {@code LeaseMemberMain <bootstrap> <topic>
 * <instance>} joins the lease group of {@code topic} and runs until killed.
 */
public final class LeaseMemberMain {

    private LeaseMemberMain() {
    }

    public static void main(String[] args) {
        GroupLease lease = new GroupLease(Map.of("bootstrap.servers", args[0]), args[1], args[1] + "-lease", args[2],
                6_000, 1_500, 100, 4_400, () -> { },
                new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true));
        System.out.println("lease member " + args[2] + " joining");
        lease.run();
    }
}
