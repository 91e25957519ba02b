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
 * The load side of the {@code sse} benchmark: appends timestamped lines to every run's log file and holds
 * {@code viewers} SSE connections (spread over the runs, and over {@code sourceAddresses} loopback source addresses
 * 127.0.0.2… so that more than one address's ephemeral ports can be used) on one NIO selector thread. Measures
 * connections held, heartbeat gaps, fan-out latency (append → frame received, ms), backend reads per run per tick
 * (from the server's /metrics) and the server's heap after GC and threads (control port), then prints a table and
 * a {@code RESULT} line.
 *
 * <p>Mode {@code fanout}: one line per run per second; a window with every viewer reading, then a window with
 * {@code stalledFraction} of them stalled (the selector stops reading them), the others' p99 and the heap compared.
 * Mode {@code broadcast}: the first run only, at each of {@code rates} lines/s in turn (one window each): deliveries/s,
 * p99 and the server's CPU per rate, and the knee (the first rate delivering under 95 % of what it offers or with
 * p99 over 50 ms).
 * Usage: {@code SseBenchClient <port> <controlPort> <storageRoot> <runs> <viewers> <seconds> <heartbeatSeconds>
 * <stalledFraction> <sourceAddresses> <fanout|broadcast> <rates,comma-separated>}.
 */
public final class SseBenchClient {

    private static final int MAX_LATENCY_MS = 60_000;
    private static final String PIPELINE = "bench.pipe";

    private final int port;
    private final int runs;
    private final long heartbeatMs;
    private final Selector selector;
    private final Queue<Conn> pending = new ConcurrentLinkedQueue<>();
    private final int sourceAddresses;
    private volatile AtomicLongArray latency = new AtomicLongArray(MAX_LATENCY_MS + 1);
    private final List<Conn> all = new ArrayList<>();
    private volatile double stallFraction;
    private volatile boolean stallApplied = true;
    private final AtomicInteger streaming = new AtomicInteger();
    private final AtomicInteger closedByServer = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicLong heartbeatGaps = new AtomicLong();
    private final AtomicLong lateHeartbeats = new AtomicLong();
    private final AtomicLong maxHeartbeatGap = new AtomicLong();
    private final AtomicLong linesReceived = new AtomicLong();
    private final AtomicInteger stalledNow = new AtomicInteger();
    /** Total lines appended per second over all runs (the appender re-reads it). */
    private volatile double appendRate;
    private volatile boolean recording;
    private volatile long windowStart;

    /** One viewer connection; touched only by the selector thread. */
    private static final class Conn {
        final int run;
        final int index;
        final SocketChannel channel;
        boolean stalled;
        final StringBuilder header = new StringBuilder();
        boolean inBody;
        byte[] frame = new byte[512];
        int frameLength;
        long lastBeat;

        Conn(int run, int index, SocketChannel channel) {
            this.run = run;
            this.index = index;
            this.channel = channel;
        }
    }

    private SseBenchClient(int port, int runs, long heartbeatMs, int sourceAddresses) throws IOException {
        this.port = port;
        this.runs = runs;
        this.heartbeatMs = heartbeatMs;
        this.sourceAddresses = sourceAddresses;
        this.selector = Selector.open();
    }

    /** What one measured window saw. */
    private record Window(long p50, long p99, long max, long lines, double readsPerTick, long maxReads, long heapMb,
                          long threads, double cores, String load, double seconds) {
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
        double stalledFraction = Double.parseDouble(args[7]);
        int sources = Integer.parseInt(args[8]);
        boolean broadcast = "broadcast".equals(args[9]);
        SseBenchClient client = new SseBenchClient(port, runs, heartbeatMs, sources);
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
            client.connect(v % runs, v);
            if (v % 500 == 499) {
                client.awaitStreaming(v + 1 - client.failed.get(), 30_000);
            }
        }
        client.awaitStreaming(viewers - client.failed.get(), 120_000);
        double connectSeconds = (System.nanoTime() - connectStart) / 1e9;

        client.appendRate = broadcast ? Double.parseDouble(args[10].split(",")[0]) : runs;
        Thread appender = new Thread(() -> client.append(logs), "bench-appender");
        appender.setDaemon(true);
        appender.start();
        Thread.sleep(5_000);
        System.out.println("| metric | value | target |");
        System.out.println("|---|---|---|");
        row("viewers requested / connected in", viewers + " / " + fmt(connectSeconds) + " s", "50,000");
        if (broadcast) {
            client.broadcast(control, viewers, seconds, args[10]);
        } else {
            client.fanout(control, viewers, seconds, stalledFraction);
        }
        System.exit(0);
    }

    /** The fan-out scenario: a window with every viewer reading, then one with a fraction stalled. */
    private void fanout(int control, int viewers, int seconds, double stalledFraction) throws Exception {
        Window reading = window(control, seconds);
        int held = streaming.get();
        double droppedBefore = sum(get(URI.create("http://127.0.0.1:" + port + "/metrics")),
                "logtailer_dropped_viewers_total");
        stall(stalledFraction);
        Thread.sleep(2_000);
        Window stalled = window(control, seconds);
        double dropped = sum(get(URI.create("http://127.0.0.1:" + port + "/metrics")),
                "logtailer_dropped_viewers_total") - droppedBefore;
        long gaps = heartbeatGaps.get();
        double onTime = gaps == 0 ? 0 : 100.0 * (gaps - lateHeartbeats.get()) / gaps;
        double ratio = reading.p99() == 0 ? stalled.p99() : (double) stalled.p99() / reading.p99();
        row("runs appended to (1 line/s each)", Integer.toString(runs), "1,000");
        row("connections held after the reading window", Integer.toString(held), "= viewers");
        row("connections closed by server / failed", closedByServer.get() + " / " + failed.get(), "0");
        row("heartbeat gaps on time (<= hb + 2 s), reading viewers", fmt(onTime) + " % of " + gaps + ", max gap "
                + maxHeartbeatGap.get() + " ms", "100 %");
        row("fan-out latency p50 / p99 / max (ms), all reading", reading.p50() + " / " + reading.p99() + " / "
                + reading.max(), "p99 <= 50");
        row("lines received in window, all reading", Long.toString(reading.lines()), "~ viewers x seconds");
        row("backend reads per run per tick (mean / max in one tick)", fmt(reading.readsPerTick()) + " / "
                + reading.maxReads(), "1");
        row("server heap after GC (MB) / threads, all reading", reading.heapMb() + " / " + reading.threads(),
                "<= 1024");
        row("server CPU (cores) / host load average, all reading", fmt(reading.cores()) + " / " + reading.load()
                + " on " + Runtime.getRuntime().availableProcessors() + " cores", "-");
        row("stalled viewers (not reading) / cut off by the slow-viewer budget", stalledNow.get() + " / "
                + (long) dropped, "-");
        row("fan-out latency p50 / p99 / max (ms), the others with stalled", stalled.p50() + " / " + stalled.p99()
                + " / " + stalled.max(), "p99 <= 1.2x all reading");
        row("server heap after GC (MB), with stalled", Long.toString(stalled.heapMb()), "flat");
        System.out.println(String.format(Locale.ROOT, "RESULT {\"scenario\":\"sse\",\"viewers\":%d,\"runs\":%d,"
                + "\"p99_fanout_ms\":%d,\"reads_per_run_tick\":%.3f,\"heap_mb\":%d,\"stalled_fraction\":%.3f,"
                + "\"p99_ratio_with_stalled\":%.2f,\"heap_mb_with_stalled\":%d}", held, runs, reading.p99(),
                reading.readsPerTick(), reading.heapMb(), (double) stalledNow.get() / Math.max(1, viewers), ratio,
                stalled.heapMb()));
    }

    /** The broadcast scenario: the first run at each rate in turn; deliveries/s, p99, CPU, and the knee. */
    private void broadcast(int control, int viewers, int seconds, String rates) throws Exception {
        String knee = "none up to the highest rate";
        StringBuilder json = new StringBuilder();
        long p99AtFirst = -1;
        double deliveredAtFirst = 0;
        for (String r : rates.split(",")) {
            double rate = Double.parseDouble(r);
            appendRate = rate;
            Thread.sleep(3_000);
            Window w = window(control, seconds);
            double offered = rate * streaming.get();
            double delivered = w.lines() / w.seconds();
            row("at " + fmt(rate) + " lines/s: delivered/s of offered, p50 / p99 / max (ms), server CPU (cores)",
                    fmt(delivered) + " of " + fmt(offered) + ", " + w.p50() + " / " + w.p99() + " / " + w.max()
                    + ", " + fmt(w.cores()) + " (load " + w.load() + ")", "p99 <= 50");
            if (knee.startsWith("none") && (delivered < 0.95 * offered || w.p99() > 50)) {
                knee = fmt(rate) + " lines/s (" + fmt(offered) + " deliveries/s offered)";
            }
            if (p99AtFirst < 0) {
                p99AtFirst = w.p99();
                deliveredAtFirst = delivered;
            }
            json.append(json.length() == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"lines_per_s\":%.1f,\"delivered_per_s\":%.0f,\"p99_ms\":%d,\"cpu_cores\":%.2f}", rate,
                    delivered, w.p99(), w.cores()));
        }
        row("knee (first rate under 95 % delivered or p99 > 50 ms)", knee, "-");
        row("connections held / closed by server / failed", streaming.get() + " / " + closedByServer.get() + " / "
                + failed.get(), "= viewers / 0 / 0");
        System.out.println(String.format(Locale.ROOT, "RESULT {\"scenario\":\"sse-broadcast\",\"viewers\":%d,"
                + "\"delivered_per_s\":%.0f,\"p99_fanout_ms\":%d,\"knee\":\"%s\",\"rates\":[%s]}",
                streaming.get(), deliveredAtFirst, p99AtFirst, knee, json));
    }

    /** One measured window of {@code seconds}: latency, reads per tick, heap after GC, CPU. */
    private Window window(int control, int seconds) throws Exception {
        latency = new AtomicLongArray(MAX_LATENCY_MS + 1);
        linesReceived.set(0);
        double[] before = serverCounters();
        long cpuBefore = Long.parseLong(field(get(URI.create("http://127.0.0.1:" + control + "/cpu")), "cpuMs"));
        long start = System.currentTimeMillis();
        windowStart = start;
        recording = true;
        Thread.sleep(seconds * 1000L);
        recording = false;
        double elapsed = (System.currentTimeMillis() - start) / 1000.0;
        double[] after = serverCounters();
        long cpuAfter = Long.parseLong(field(get(URI.create("http://127.0.0.1:" + control + "/cpu")), "cpuMs"));
        String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        String gc = get(URI.create("http://127.0.0.1:" + control + "/gc"));
        long[] pct = percentiles(0.50, 0.99, 1.0);
        return new Window(pct[0], pct[1], pct[2], linesReceived.get(),
                (after[0] - before[0]) / Math.max(1, after[1] - before[1]), (long) after[2],
                Long.parseLong(field(gc, "heapMb")), Long.parseLong(field(gc, "threads")),
                (cpuAfter - cpuBefore) / 1000.0 / elapsed, load, elapsed);
    }

    /** Asks the selector thread to stop reading {@code fraction} of the viewers (spread evenly over them). */
    private void stall(double fraction) throws InterruptedException {
        stallFraction = fraction;
        stallApplied = false;
        selector.wakeup();
        while (!stallApplied) {
            Thread.sleep(10);
        }
    }

    /** Appends lines round-robin over the runs at {@link #appendRate} lines/s in total (re-read every line). */
    private void append(List<FileOutputStream> logs) {
        long[] seq = new long[runs];
        double rate = appendRate;
        long start = System.nanoTime();
        long n = 0;
        for (long tick = 0; ; tick++) {
            if (appendRate != rate) {
                rate = appendRate;
                start = System.nanoTime();
                n = 0;
            }
            int r = (int) (tick % runs);
            long due = start + (long) (n++ * (1e9 / rate));
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

    /** Opens viewer {@code index} of {@code run} from source address 127.0.0.(2 + index % sourceAddresses). */
    private void connect(int run, int index) throws IOException {
        SocketChannel channel = SocketChannel.open();
        channel.configureBlocking(false);
        if (sourceAddresses > 1) {
            channel.bind(new InetSocketAddress("127.0.0." + (2 + index % sourceAddresses), 0));
        }
        channel.connect(new InetSocketAddress("127.0.0.1", port));
        pending.add(new Conn(run, index, channel));
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
                    all.add(c);
                }
                if (!stallApplied) {
                    applyStall();
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

    /** On the selector thread: stops reading every viewer whose index falls on the stall fraction. */
    private void applyStall() {
        double f = stallFraction;
        for (Conn c : all) {
            boolean stall = Math.floor((c.index + 1) * f) > Math.floor(c.index * f);
            SelectionKey key = c.channel.keyFor(selector);
            if (stall && !c.stalled && c.inBody && key != null && key.isValid()) {
                c.stalled = true;
                key.interestOps(0);
                stalledNow.incrementAndGet();
            }
        }
        stallApplied = true;
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
            if (recording && c.lastBeat >= windowStart && !c.stalled) {
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
                if (ts >= windowStart && !c.stalled) {
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
