package io.changestream.logs.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The catalogue of every meter of the log-tailer (Prometheus names, each with a description and bounded tags).
 * Counters are thread-safe; any thread records.
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>tags</th></tr>
 * <tr><td>logtailer_active_runs</td><td>-</td></tr>
 * <tr><td>logtailer_active_connections</td><td>-</td></tr>
 * <tr><td>logtailer_sent_bytes_total</td><td>-</td></tr>
 * <tr><td>logtailer_polls_total</td><td>-</td></tr>
 * <tr><td>logtailer_poll_reads (summary: _count, _sum, _max)</td><td>-</td></tr>
 * <tr><td>logtailer_backend_reads_total</td><td>source</td></tr>
 * <tr><td>logtailer_backend_errors_total</td><td>kind = transient|fatal</td></tr>
 * <tr><td>logtailer_refusals_total</td><td>reason</td></tr>
 * <tr><td>logtailer_replays_total</td><td>kind = memory|kafka|source|truncated</td></tr>
 * <tr><td>logtailer_dropped_viewers_total</td><td>budget = viewer|global</td></tr>
 * <tr><td>logtailer_stream_ends_total</td><td>reason</td></tr>
 * <tr><td>logtailer_chunks_published_total</td><td>outcome = ok|failed</td></tr>
 * </table>
 */
public final class LogMetrics {

    /** Why a stream request was refused. */
    public enum Refusal { TOO_MANY_RUNS, TOO_MANY_CONNECTIONS, NO_BACKEND, TOO_MANY_BACKEND_RUNS, CALLER_LIMIT }

    /** Where a joining viewer's missed content came from. */
    public enum ReplayKind { MEMORY, KAFKA, SOURCE, TRUNCATED }

    private final MeterRegistry registry;
    private final Counter sentBytes;
    private final Counter polls;
    private final io.micrometer.core.instrument.DistributionSummary pollReads;
    private final Counter transientErrors;
    private final Counter fatalErrors;
    private final Map<Viewer.Budget, Counter> dropped = new EnumMap<>(Viewer.Budget.class);
    private final Counter published;
    private final Counter publishFailed;
    private final Map<Refusal, Counter> refusals = new EnumMap<>(Refusal.class);
    private final Map<ReplayKind, Counter> replays = new EnumMap<>(ReplayKind.class);
    private final Map<String, Counter> reads = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Counter> ends = new java.util.concurrent.ConcurrentHashMap<>();

    /** Registers the counters in {@code registry}; gauges come with {@link #gauges}. */
    public LogMetrics(MeterRegistry registry) {
        this.registry = registry;
        sentBytes = Counter.builder("logtailer.sent.bytes").description("UTF-8 bytes handed to viewer connections")
                .register(registry);
        polls = Counter.builder("logtailer.polls").description("Polls of run tailers (ticks)").register(registry);
        pollReads = io.micrometer.core.instrument.DistributionSummary.builder("logtailer.poll.reads")
                .description("Backend reads per poll of a run (1 unless catching up on a backlog)")
                .register(registry);
        transientErrors = errors("transient");
        fatalErrors = errors("fatal");
        for (Viewer.Budget b : Viewer.Budget.values()) {
            dropped.put(b, Counter.builder("logtailer.dropped.viewers")
                    .description("Viewers cut off with truncated and their cursor because their unsent bytes passed"
                            + " maxPendingBytesPerClient (viewer) or all viewers' passed maxPendingBytesTotal (global)")
                    .tag("budget", b.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        published = publishCounter("ok");
        publishFailed = publishCounter("failed");
        for (Refusal r : Refusal.values()) {
            refusals.put(r, Counter.builder("logtailer.refusals")
                    .description("Stream requests answered with an error event instead of a stream")
                    .tag("reason", r.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
        for (ReplayKind k : ReplayKind.values()) {
            replays.put(k, Counter.builder("logtailer.replays")
                    .description("Joining viewers served missed content, by where it came from")
                    .tag("kind", k.name().toLowerCase(java.util.Locale.ROOT)).register(registry));
        }
    }

    /** A metrics catalogue on a fresh in-memory registry (tests, tools). */
    public static LogMetrics inMemory() {
        return new LogMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    }

    /** Registers the two gauges. */
    public void gauges(Supplier<Number> activeRuns, Supplier<Number> activeConnections) {
        Gauge.builder("logtailer.active.runs", activeRuns).description("Runs being tailed").register(registry);
        Gauge.builder("logtailer.active.connections", activeConnections)
                .description("Open log stream connections").register(registry);
    }

    /** The registry the meters live in. */
    public MeterRegistry registry() {
        return registry;
    }

    void sentBytes(long bytes) {
        sentBytes.increment(bytes);
    }

    void poll(int reads) {
        polls.increment();
        pollReads.record(reads);
    }

    void backendRead(String source) {
        reads.computeIfAbsent(source, s -> Counter.builder("logtailer.backend.reads")
                .description("Pages read from log backends").tag("source", s).register(registry)).increment();
    }

    void backendError(boolean fatal) {
        (fatal ? fatalErrors : transientErrors).increment();
    }

    void dropped(Viewer.Budget budget) {
        dropped.get(budget).increment();
    }

    /** Counts a refused stream request. */
    public void refused(Refusal reason) {
        refusals.get(reason).increment();
    }

    void replay(ReplayKind kind) {
        replays.get(kind).increment();
    }

    void streamEnded(String reason) {
        ends.computeIfAbsent(reason, r -> Counter.builder("logtailer.stream.ends")
                .description("Tailers ended, by reason").tag("reason", r).register(registry)).increment();
    }

    /** Counts one chunk produced to log-chunks. */
    public void published(boolean ok) {
        (ok ? published : publishFailed).increment();
    }

    /** Total backend reads so far (all sources). */
    public double backendReads() {
        return registry.find("logtailer.backend.reads").counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Total polls so far. */
    public double polls() {
        return polls.count();
    }

    /** Count of one replay kind so far. */
    public double replays(ReplayKind kind) {
        return replays.get(kind).count();
    }

    /** Count of one refusal reason so far. */
    public double refusals(Refusal reason) {
        return refusals.get(reason).count();
    }

    /** Viewers dropped so far. */
    public double droppedViewers() {
        return dropped.values().stream().mapToDouble(Counter::count).sum();
    }

    private Counter errors(String kind) {
        return Counter.builder("logtailer.backend.errors").description("Failed backend reads, transient or fatal")
                .tag("kind", kind).register(registry);
    }

    private Counter publishCounter(String outcome) {
        return Counter.builder("logtailer.chunks.published").description("Chunks produced to the log-chunks topic")
                .tag("outcome", outcome).register(registry);
    }
}
