package io.changestream.bench.sse;

import com.sun.net.httpserver.HttpServer;
import io.changestream.logs.LogTailerConfig;
import io.changestream.logs.LogTailerServer;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;

/**
 * The server side of the {@code sse} benchmark: a real log-tailer on a storage root with the caps raised (connections:
 * {@code -Dsse.maxConnections}, default 20,000; the per-caller limits the same, all viewers being one caller), plus a
 * control port whose {@code GET /gc} runs a full GC and answers heap used (MB) and live threads, and
 * {@code GET /cpu} the process CPU time (ms). Runs until killed.
 * Usage: {@code SseBenchServer <storageRoot> <port> <controlPort> <pollSeconds> <heartbeatSeconds>}.
 */
public final class SseBenchServer {

    private SseBenchServer() {
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.setProperty("http.host", "127.0.0.1");
        p.setProperty("http.port", args[1]);
        p.setProperty("http.acceptQueue", "4096");
        p.setProperty("http.maxThreads", System.getProperty("sse.maxThreads", "64"));
        p.setProperty("auth.tokens", "bench");
        p.setProperty("storage.root", args[0]);
        p.setProperty("stream.pollSeconds", args[3]);
        p.setProperty("stream.heartbeatSeconds", args[4]);
        p.setProperty("stream.maxActiveRuns", "2000");
        String connections = System.getProperty("sse.maxConnections", "20000");
        p.setProperty("stream.maxActiveConnections", connections);
        // every viewer of the bench is one caller (one token, a few loopback addresses): its limits are the server's
        p.setProperty("limits.maxConnectionsPerToken", connections);
        p.setProperty("limits.maxConnectionsPerAddress", connections);
        p.setProperty("limits.maxRunsPerToken", "2000");
        p.setProperty("limits.maxRunsPerAddress", "2000");
        LogTailerServer server = LogTailerServer.start(LogTailerConfig.from(p, Map.of()));
        HttpServer control = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[2])), 16);
        control.createContext("/gc", exchange -> {
            System.gc();
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            int threads = ManagementFactory.getThreadMXBean().getThreadCount();
            byte[] body = ("{\"heapMb\":" + heap / (1024 * 1024) + ",\"threads\":" + threads + "}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        control.createContext("/cpu", exchange -> {
            long cpuNanos = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
            byte[] body = ("{\"cpuMs\":" + cpuNanos / 1_000_000 + "}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        control.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            control.stop(0);
            server.close();
        }));
        System.out.println("READY " + server.port());
        Thread.currentThread().join();
    }
}
