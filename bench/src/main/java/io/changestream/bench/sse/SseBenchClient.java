package io.changestream.bench.sse;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The load side of the {@code sse} benchmark: appends one timestamped line per run per second to every run's log
 * file and holds {@code viewers} SSE connections (spread over the runs) on one NIO selector thread. Measures
 * connections held, heartbeat gaps, fan-out latency (append → frame received, ms), backend reads per run per tick
 * (from the server's /metrics) and the server's heap after GC and threads (control port), then prints a table and
 * a {@code RESULT} line.
 * Usage: {@code SseBenchClient <port> <controlPort> <storageRoot> <runs> <viewers> <seconds> <heartbeatSeconds>}.
 */
public final class SseBenchClient {

    private static final int MAX_LATENCY_MS = 60_000;
    private static final String PIPELINE = "bench.pipe";

    private final int port;
    private final int runs;
    private final long heartbeatMs;
    private final Selector selector;
    private final Queue<Conn> pending = new ConcurrentLinkedQueue<>();
    private final AtomicLongArray latency = new AtomicLongArray(MAX_LATENCY_MS + 1);
    private final AtomicInteger streaming = new AtomicInteger();
    private final AtomicInteger closedByServer = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicLong heartbeatGaps = new AtomicLong();
    private final AtomicLong lateHeartbeats = new AtomicLong();
    private final AtomicLong maxHeartbeatGap = new AtomicLong();
    private final AtomicLong linesReceived = new AtomicLong();
    private volatile boolean recording;
    private volatile long windowStart;

    /** One viewer connection; touched only by the selector thread. */
    private static final class Conn {
        final int run;
        final SocketChannel channel;
        final StringBuilder header = new StringBuilder();
        boolean inBody;
        byte[] frame = new byte[512];
        int frameLength;
        long lastBeat;

        Conn(int run, SocketChannel channel) {
            this.run = run;
            this.channel = channel;
        }
    }

    private SseBenchClient(int port, int runs, long heartbeatMs) throws IOException {
        this.port = port;
        this.runs = runs;
        this.heartbeatMs = heartbeatMs;
        this.selector = Selector.open();
    }

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int control = Integer.parseInt(args[1]);
        Path root = Path.of(args[2]);
        int runs = Integer.parseInt(args[3]);
        int viewers = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        long heartbeatMs = Long.parseLong(args[6]) * 1000;
        SseBenchClient client = new SseBenchClient(port, runs, heartbeatMs);
        List<FileOutputStream> logs = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            Path dir = Files.createDirectories(root.resolve(PIPELINE).resolve(run(r)));
            logs.add(new FileOutputStream(dir.resolve("logs.txt").toFile(), true));
        }
        Thread loop = new Thread(client::selectLoop, "bench-selector");
        loop.setDaemon(true);
        loop.start();

        long connectStart = System.nanoTime();
        for (int v = 0; v < viewers; v++) {
            client.connect(v % runs);
            if (v % 500 == 499) {
                client.awaitStreaming(v + 1 - client.failed.get(), 30_000);
            }
        }
        client.awaitStreaming(viewers - client.failed.get(), 60_000);
        double connectSeconds = (System.nanoTime() - connectStart) / 1e9;

        Thread appender = new Thread(() -> append(logs, runs), "bench-appender");
        appender.setDaemon(true);
        appender.start();
        Thread.sleep(5_000);
        double[] before = client.serverCounters();
        long cpuBefore = Long.parseLong(field(get(URI.create("http://127.0.0.1:" + control + "/cpu")), "cpuMs"));
        client.windowStart = System.currentTimeMillis();
        client.recording = true;
        Thread.sleep(seconds * 1000L);
        double[] after = client.serverCounters();
        long cpuAfter = Long.parseLong(field(get(URI.create("http://127.0.0.1:" + control + "/cpu")), "cpuMs"));
        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        String gc = get(URI.create("http://127.0.0.1:" + control + "/gc"));
        client.recording = false;
        int held = client.streaming.get();

        double readsPerTick = (after[0] - before[0]) / Math.max(1, after[1] - before[1]);
        long heapMb = Long.parseLong(field(gc, "heapMb"));
        long threads = Long.parseLong(field(gc, "threads"));
        long[] pct = client.percentiles(0.50, 0.99, 1.0);
        long gaps = client.heartbeatGaps.get();
        double onTime = gaps == 0 ? 0 : 100.0 * (gaps - client.lateHeartbeats.get()) / gaps;
        System.out.println("| metric | value | target |");
        System.out.println("|---|---|---|");
        row("runs appended to (1 line/s each)", Integer.toString(runs), "1,000");
        row("viewers requested / connected in", viewers + " / " + fmt(connectSeconds) + " s", "18,000");
        row("connections held at the end", Integer.toString(held), "= viewers");
        row("connections closed by server / failed", client.closedByServer.get() + " / " + client.failed.get(), "0");
        row("heartbeat gaps on time (<= hb + 2 s)", fmt(onTime) + " % of " + gaps + ", max gap "
                + client.maxHeartbeatGap.get() + " ms", "100 %");
        row("fan-out latency p50 / p99 / max (ms)", pct[0] + " / " + pct[1] + " / " + pct[2], "p99 <= 50");
        row("lines received in window", Long.toString(client.linesReceived.get()),
                "~ runs x viewers/run x seconds");
        row("backend reads per run per tick (mean / max in one tick, last minutes)", fmt(readsPerTick) + " / "
                + (long) after[2], "1");
        row("server heap after GC (MB) / threads", heapMb + " / " + threads, "<= 1024");
        row("server CPU in window (cores) / host load average", fmt((cpuAfter - cpuBefore) / 1000.0 / seconds)
                + " / " + load + " on " + Runtime.getRuntime().availableProcessors() + " cores", "-");
        System.out.println(String.format(Locale.ROOT, "RESULT {\"scenario\":\"sse\",\"viewers\":%d,\"runs\":%d,"
                + "\"p99_fanout_ms\":%d,\"reads_per_run_tick\":%.3f,\"heap_mb\":%d}", held, runs, pct[1],
                readsPerTick, heapMb));
        System.exit(0);
    }

    private static void append(List<FileOutputStream> logs, int runs) {
        long[] seq = new long[runs];
        long start = System.nanoTime();
        long slot = 1_000_000_000L / runs;
        for (long tick = 0; ; tick++) {
            int r = (int) (tick % runs);
            long due = start + tick * slot;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            String line = "ts=" + System.currentTimeMillis() + " run=" + r + " seq=" + seq[r]++ + "\n";
            try {
                logs.get(r).write(line.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private void connect(int run) throws IOException {
        SocketChannel channel = SocketChannel.open();
        channel.configureBlocking(false);
        channel.connect(new InetSocketAddress("127.0.0.1", port));
        pending.add(new Conn(run, channel));
        selector.wakeup();
    }

    private void awaitStreaming(int count, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (streaming.get() + closedByServer.get() < count && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
    }

    private void selectLoop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
        byte[] bytes = new byte[64 * 1024];
        while (true) {
            try {
                selector.select(100);
                for (Conn c; (c = pending.poll()) != null; ) {
                    c.channel.register(selector, SelectionKey.OP_CONNECT, c);
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    Conn c = (Conn) key.attachment();
                    try {
                        if (key.isConnectable()) {
                            c.channel.finishConnect();
                            String request = "GET /api/v1/services/ingestionPipelines/logs/" + PIPELINE + "/stream/"
                                    + run(c.run) + " HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer bench\r\n"
                                    + (c.run % 2 == 0 ? "Accept: text/event-stream\r\n" : "") + "\r\n";
                            c.channel.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
                            key.interestOps(SelectionKey.OP_READ);
                        } else if (key.isReadable()) {
                            buffer.clear();
                            int n = c.channel.read(buffer);
                            if (n < 0) {
                                close(key, c, true);
                                continue;
                            }
                            buffer.flip();
                            buffer.get(bytes, 0, n);
                            consume(c, bytes, n);
                        }
                    } catch (IOException e) {
                        close(key, c, false);
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private void close(SelectionKey key, Conn c, boolean byServer) {
        key.cancel();
        try {
            c.channel.close();
        } catch (IOException e) {
            // closing anyway
        }
        if (c.inBody) {
            streaming.decrementAndGet();
        }
        (byServer && c.inBody ? closedByServer : failed).incrementAndGet();
    }

    private void consume(Conn c, byte[] bytes, int n) {
        int i = 0;
        if (!c.inBody) {
            for (; i < n && !c.inBody; i++) {
                c.header.append((char) bytes[i]);
                if (c.header.length() >= 4 && c.header.substring(c.header.length() - 4).equals("\r\n\r\n")) {
                    c.inBody = c.header.indexOf("HTTP/1.1 200") == 0 || c.header.indexOf("HTTP/1.0 200") == 0;
                    if (!c.inBody) {
                        failed.incrementAndGet();
                        return;
                    }
                    streaming.incrementAndGet();
                    c.lastBeat = System.currentTimeMillis();
                }
            }
        }
        for (; i < n; i++) {
            byte b = bytes[i];
            if (b == '\n' && c.frameLength > 0 && c.frame[c.frameLength - 1] == '\n') {
                frame(c, c.frameLength - 1);
                c.frameLength = 0;
                continue;
            }
            if (c.frameLength == c.frame.length) {
                c.frame = java.util.Arrays.copyOf(c.frame, c.frame.length * 2);
            }
            c.frame[c.frameLength++] = b;
        }
    }

    private void frame(Conn c, int length) {
        long now = System.currentTimeMillis();
        if (c.frame[0] == ':') {
            if (recording && c.lastBeat >= windowStart) {
                long gap = now - c.lastBeat;
                heartbeatGaps.incrementAndGet();
                maxHeartbeatGap.accumulateAndGet(gap, Math::max);
                if (gap > heartbeatMs + 2_000) {
                    lateHeartbeats.incrementAndGet();
                }
            }
            c.lastBeat = now;
            return;
        }
        if (!recording) {
            return;
        }
        for (int i = 0; i + 3 < length; i++) {
            if (c.frame[i] == 't' && c.frame[i + 1] == 's' && c.frame[i + 2] == '=') {
                long ts = 0;
                int j = i + 3;
                while (j < length && c.frame[j] >= '0' && c.frame[j] <= '9') {
                    ts = ts * 10 + (c.frame[j++] - '0');
                }
                if (ts >= windowStart) {
                    latency.incrementAndGet((int) Math.max(0, Math.min(MAX_LATENCY_MS, now - ts)));
                    linesReceived.incrementAndGet();
                }
                i = j;
            }
        }
    }

    private long[] percentiles(double... qs) {
        long total = 0;
        for (int i = 0; i <= MAX_LATENCY_MS; i++) {
            total += latency.get(i);
        }
        long[] out = new long[qs.length];
        for (int q = 0; q < qs.length; q++) {
            long rank = (long) Math.ceil(qs[q] * total);
            long seen = 0;
            for (int i = 0; i <= MAX_LATENCY_MS; i++) {
                seen += latency.get(i);
                if (seen >= rank && total > 0) {
                    out[q] = i;
                    break;
                }
            }
        }
        return out;
    }

    /** {@code [backend reads, polls, max reads in one recent poll]} from the server's /metrics. */
    private double[] serverCounters() throws IOException {
        String metrics = get(URI.create("http://127.0.0.1:" + port + "/metrics"));
        // one summary: its _sum (reads) and _count (polls) are taken together, unlike two separate counters
        return new double[] {sum(metrics, "logtailer_poll_reads_sum"), sum(metrics, "logtailer_poll_reads_count"),
            sum(metrics, "logtailer_poll_reads_max")};
    }

    private static double sum(String metrics, String name) {
        double total = 0;
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})? ([0-9.eE+]+)$").matcher(metrics);
        while (m.find()) {
            total += Double.parseDouble(m.group(2));
        }
        return total;
    }

    private static String get(URI uri) throws IOException {
        try (InputStream in = uri.toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        return m.group(1);
    }

    private static String run(int r) {
        return String.format(Locale.ROOT, "run-%04d", r);
    }

    private static void row(String metric, String value, String target) {
        System.out.println("| " + metric + " | " + value + " | " + target + " |");
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
