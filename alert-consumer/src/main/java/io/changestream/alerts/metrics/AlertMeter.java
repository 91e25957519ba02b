package io.changestream.alerts.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Every meter alert-consumer registers: name (Micrometer dotted form; Prometheus adds {@code _total} to counters,
 * {@code _seconds} to timers and the base unit to gauges that declare one), type, tag keys and help text, declared
 * once. A registration starts from its constant ({@link #counter()}, {@link #timer()}, {@link #gauge} …), which
 * carries the name and the help; the site adds its tag values, buckets or base unit. Tags are bounded: destination
 * {@code type} by the platform's destination types, {@code outcome}, {@code reason}, {@code result}, {@code status},
 * {@code source} by their enums or fixed labels, {@code event_type} by the platform's event types plus two,
 * {@code topic} by the DLQ topic; never a subscription, destination or entity id. The consumer runtime's meters are
 * {@code io.changestream.runtime.metrics.RuntimeMeter}; the Prometheus rules and the Grafana dashboard are checked
 * against both ({@code MeterCatalogueTest}).
 */
public enum AlertMeter {
    DEAD_LETTERS(Type.COUNTER, "changestream.alert.dead.letters", List.of("source"),
            "Failed events written to the dead-letter topic, by failure source"),
    DELIVERIES(Type.COUNTER, "changestream.alert.deliveries", List.of("type", "outcome", "reason"),
            "Delivery attempts by destination type, outcome and failure reason"),
    DELIVERIES_IN_FLIGHT(Type.GAUGE, "changestream.alert.deliveries.in.flight", List.of("type"),
            "Delivery requests being sent now, by destination type"),
    DELIVERIES_QUEUED(Type.GAUGE, "changestream.alert.deliveries.queued", List.of("type"),
            "Delivery requests waiting for a slot of their destination "
                    + "(delivery.maxConcurrentPerDestination), by destination type"),
    DELIVERIES_SHED(Type.FUNCTION_COUNTER, "changestream.alert.deliveries.shed", List.of("type"),
            "Delivery requests not sent because their destination was saturated (every slot busy "
                    + "past delivery.maxQueueWait, or its queue full): handed to the retry path"),
    DELIVERY(Type.TIMER, "changestream.alert.delivery", List.of("type"),
            "Time to deliver one request or batch to a destination"),
    DESTINATIONS_SUSPENDED(Type.GAUGE, "changestream.alert.destinations.suspended", List.of(),
            "Destinations suspended group-wide (410 Gone, a failure streak or duration, or by "
                    + "hand); their deliveries are parked on alert-retry until resumed"),
    DIGEST_EARLY_SEALS(Type.COUNTER, "changestream.alert.digest.early.seals", List.of(),
            "Windows sealed before they were due because digest.maxWindows windows were open"),
    DIGEST_ENTRIES(Type.COUNTER, "changestream.alert.digest.entries", List.of(),
            "Events collected for digests and groups (acked on alert-digest)"),
    DIGEST_LISTED_BYTES(Type.GAUGE, "changestream.alert.digest.listed.bytes", List.of(),
            "Bytes of the changes held to be listed in digest and group messages (bounded by "
                    + "digest.maxListedBytes)"),
    DIGEST_MESSAGES(Type.COUNTER, "changestream.alert.digest.messages", List.of("outcome"),
            "Digest and group messages settled, by outcome (delivered, dead_lettered, dropped)"),
    DIGEST_OPEN_WINDOWS(Type.GAUGE, "changestream.alert.digest.open.windows", List.of(),
            "Open digest and group windows of the owned alert-digest partitions"),
    DLQ_DEPTH(Type.GAUGE, "changestream.alert.dlq.depth", List.of("topic"),
            "Records held in the alert DLQ topic: log end minus log start over its partitions (dead "
                    + "letters within retention; a replay does not remove them), read periodically"),
    LEDGER_BATCH_PAIRS(Type.SUMMARY, "changestream.alert.ledger.batch.pairs", List.of(),
            "Pair outcomes per ledger batch (group commit)"),
    LEDGER_HITS(Type.COUNTER, "changestream.alert.ledger.hits", List.of(),
            "Deliveries skipped because the ledger already held the pair"),
    LEDGER_REBUILD(Type.TIMER, "changestream.alert.ledger.rebuild", List.of(),
            "Duration of one partition's ledger window rebuild"),
    LEDGER_REBUILD_RECORDS(Type.COUNTER, "changestream.alert.ledger.rebuild.records", List.of(),
            "Ledger records read by window rebuilds"),
    LEDGER_REBUILDS(Type.COUNTER, "changestream.alert.ledger.rebuilds", List.of("result"),
            "Ledger window rebuilds, by result (complete, truncated, empty, failed, released)"),
    LEDGER_UNREADABLE_RECORDS(Type.COUNTER, "changestream.alert.ledger.unreadable.records", List.of(),
            "Ledger records a rebuild could not read (skipped, logged with coordinates)"),
    LEDGER_WINDOW_BYTES(Type.GAUGE, "changestream.alert.ledger.window.bytes", List.of(),
            "Estimated memory of the ledger windows (bounded by ledger.windowMaxBytes)"),
    LEDGER_WINDOW_EVICTIONS(Type.FUNCTION_COUNTER, "changestream.alert.ledger.window.evictions", List.of("reason"),
            "Pairs dropped from the ledger windows, by reason (horizon passed, memory budget)"),
    LEDGER_WINDOW_PAIRS(Type.GAUGE, "changestream.alert.ledger.window.pairs", List.of(),
            "Settled pairs held in the ledger windows of the owned partitions"),
    LEDGER_WRITE(Type.TIMER, "changestream.alert.ledger.write", List.of(),
            "Time from a pair's ledger write until the broker acked its batch"),
    LEDGER_WRITES(Type.COUNTER, "changestream.alert.ledger.writes", List.of("status"),
            "Pair outcomes acked on the ledger, by status"),
    MALFORMED(Type.COUNTER, "changestream.alert.malformed", List.of(),
            "Source records that could not be read as events (dead-lettered with their raw value)"),
    OPEN_CIRCUITS(Type.GAUGE, "changestream.alert.open.circuits", List.of("type"),
            "Destinations whose circuit breaker is open, by destination type"),
    PROCESSING(Type.TIMER, "changestream.alert.processing", List.of("event_type"),
            "Duration of one event's attempt in the alert processor (every subscription and "
                    + "destination group of the event), by the platform's event type"),
    RELEASE_CANCELLED(Type.COUNTER, "changestream.alert.release.cancelled", List.of(),
            "Deliveries still running when their partition was released after "
                    + "pipeline.releaseTimeout, cancelled"),
    RETRY_DEPTH(Type.GAUGE, "changestream.alert.retry.depth", List.of(),
            "Records on alert-retry the retry group has not committed past (parked and waiting "
                    + "pairs, group-wide)"),
    RETRY_HANDOFFS(Type.COUNTER, "changestream.alert.retry.handoffs", List.of("reason"),
            "Pairs handed off the commit path to alert-retry, by reason (wait past the inline "
                    + "budget, parked behind a suspension or backlog, 410 Gone)"),
    RETRY_HELD(Type.GAUGE, "changestream.alert.retry.held", List.of(),
            "Retry-path records this instance holds in memory (waiting or parked, not settled)"),
    RETRY_LEFT_ON_TOPIC(Type.COUNTER, "changestream.alert.retry.left.on.topic", List.of(),
            "Retry-path records not held in memory because their destination holds "
                    + "retry.maxHeldPerDestination (or all hold retry.maxHeld); read again when there is room"),
    RETRY_OLDEST_AGE(Type.GAUGE, "changestream.alert.retry.oldest.age", List.of(),
            "Age of the oldest retry-path record this instance holds, since its hand-off"),
    RETRY_OVERSIZE(Type.COUNTER, "changestream.alert.retry.oversize", List.of(),
            "Pairs that stayed inline because their retry record would exceed retry.maxRecordBytes"),
    RETRY_SETTLED(Type.COUNTER, "changestream.alert.retry.settled", List.of("result"),
            "Retry-path records settled, by result (delivered, deadLettered, dropped: its "
                    + "subscription or destination was deleted or disabled while it waited, dead-lettered; "
                    + "duplicate: a second hand-off of a settled pair; unreadable)"),
    THROTTLED(Type.COUNTER, "changestream.alert.throttled", List.of("type"),
            "Requests held back by their destination's rate limit or a receiver's Retry-After"),
    UNKNOWN_OUTCOMES(Type.COUNTER, "changestream.alert.unknown.outcomes", List.of(),
            "At-most-once sends attempted before a crash and reported instead of sent again"),
    SUBSCRIPTIONS(Type.GAUGE, "changestream.subscriptions", List.of(),
            "Subscriptions in this instance's view"),
    SUBSCRIPTIONS_MALFORMED(Type.COUNTER, "changestream.subscriptions.malformed", List.of(),
            "Records of the subscriptions topic that could not be read and were skipped"),
    SUBSCRIPTIONS_PAUSED_EVENTS(Type.COUNTER, "changestream.subscriptions.paused.events", List.of(),
            "Times an event was held back because the subscription view was stale"),
    SUBSCRIPTIONS_READER_RESTARTS(Type.FUNCTION_COUNTER, "changestream.subscriptions.reader.restarts", List.of(),
            "Times a dead subscriptions reader thread was restarted"),
    SUBSCRIPTIONS_VIEW_AGE(Type.GAUGE, "changestream.subscriptions.view.age", List.of(),
            "Seconds since the subscription view was last confirmed to hold the whole topic");

    /** The Micrometer meter type. */
    public enum Type { COUNTER, FUNCTION_COUNTER, TIMER, GAUGE, SUMMARY }

    private final Type type;
    private final String meterName;
    private final List<String> tags;
    private final String help;

    AlertMeter(Type type, String meterName, List<String> tags, String help) {
        this.type = type;
        this.meterName = meterName;
        this.tags = tags;
        this.help = help;
    }

    /** The meter type. */
    public Type type() {
        return type;
    }

    /** The dotted Micrometer name, e.g. {@code changestream.alert.deliveries}. */
    public String meterName() {
        return meterName;
    }

    /** The tag keys. */
    public List<String> tags() {
        return tags;
    }

    /** The help text (the Prometheus HELP line). */
    public String help() {
        return help;
    }

    /**
     * The name Prometheus shows: underscores, {@code _total} for counters, {@code _seconds} for timers (their
     * {@code _count}, {@code _sum} and {@code _bucket} series start with it), gauges and summaries as they are (a
     * base unit, where a site declares one, is appended by the registry).
     */
    public String prometheusName() {
        String base = meterName.replace('.', '_');
        return switch (type) {
            case COUNTER, FUNCTION_COUNTER -> base + "_total";
            case TIMER -> base + "_seconds";
            default -> base;
        };
    }

    /** A counter builder with this meter's name and help. */
    public Counter.Builder counter() {
        return Counter.builder(meterName).description(help);
    }

    /** A timer builder with this meter's name and help. */
    public Timer.Builder timer() {
        return Timer.builder(meterName).description(help);
    }

    /** A distribution summary builder with this meter's name and help. */
    public DistributionSummary.Builder summary() {
        return DistributionSummary.builder(meterName).description(help);
    }

    /** A gauge builder of {@code f(obj)} with this meter's name and help. */
    public <T> Gauge.Builder<T> gauge(T obj, ToDoubleFunction<T> f) {
        return Gauge.builder(meterName, obj, f).description(help);
    }

    /** A function counter builder of {@code f(obj)} with this meter's name and help. */
    public <T> FunctionCounter.Builder<T> functionCounter(T obj, ToDoubleFunction<T> f) {
        return FunctionCounter.builder(meterName, obj, f).description(help);
    }
}
