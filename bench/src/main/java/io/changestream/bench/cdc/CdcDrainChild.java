package io.changestream.bench.cdc;

import io.changestream.cdc.CdcMain;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The connector process of {@code ops/bench cdc-drain}: runs {@link CdcMain} unchanged and, on a daemon thread
 * ({@code drain-sampler}), appends one line every 20 ms to a file: {@code nanoTime processCpuNanos allocatedBytes}
 * (the JVM's process CPU and the bytes allocated by its live threads). {@link System#nanoTime()} is the machine's
 * monotonic clock on Linux, so the parent reads off CPU and allocation at the moments it saw the first and the last
 * record in Kafka.
 *
 * <p>Arguments: {@code <config.properties> <samples file>}.
 */
public final class CdcDrainChild {

    private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private CdcDrainChild() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: CdcDrainChild <config.properties> <samples file>");
            System.exit(2);
        }
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8), true);
        Thread sampler = new Thread(() -> sample(out), "drain-sampler");
        sampler.setDaemon(true);
        sampler.start();
        CdcMain.main(new String[] {args[0]});
    }

    private static void sample(PrintWriter out) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        threads.setThreadAllocatedMemoryEnabled(true);
        long allocatedByDeadThreads = 0;
        java.util.Map<Long, Long> last = new java.util.HashMap<>();
        while (true) {
            long[] ids = threads.getAllThreadIds();
            long[] bytes = threads.getThreadAllocatedBytes(ids);
            java.util.Map<Long, Long> now = new java.util.HashMap<>();
            long live = 0;
            for (int i = 0; i < ids.length; i++) {
                if (bytes[i] >= 0) {
                    now.put(ids[i], bytes[i]);
                    live += bytes[i];
                }
            }
            // a thread that ended since the last sample keeps what it had allocated by then
            for (var e : last.entrySet()) {
                if (!now.containsKey(e.getKey())) {
                    allocatedByDeadThreads += e.getValue();
                }
            }
            last = now;
            out.println(System.nanoTime() + " " + os.getProcessCpuTime() + " " + (allocatedByDeadThreads + live));
            LockSupport.parkNanos(SAMPLE_NANOS);
        }
    }
}
