package io.changestream.runtime.metrics;

import java.util.List;

/**
 * Every meter the consumer runtime registers: name (Micrometer dotted form; Prometheus adds {@code _total} to
 * counters and {@code _seconds} to timers), type, tags and description. Tags are bounded: {@code lane} by
 * {@code lanes}, {@code topic}/{@code partition} by the assigned partitions (removed on revoke), {@code outcome},
 * {@code kind}, {@code result} and {@code buffer} by their enums. No meter is tagged with a record key (unbounded): the
 * deepest lane's depth is a gauge, and its hottest key appears only in the periodic stats log line. Every meter also
 * carries the {@code group} tag (the consumer group).
 */
public enum RuntimeMeter {
    RECORDS_POLLED(Type.COUNTER, "changestream.runtime.records.polled", List.of(),
            "Records returned by poll and taken in"),
    ENQUEUE_WAIT(Type.TIMER, "changestream.runtime.enqueue.wait", List.of(),
            "Time from poll until a lane worker takes the event, sampled once per batch taken (its oldest event)"),
    LANE_QUEUE_LENGTH(Type.GAUGE, "changestream.runtime.lane.queue.length", List.of("lane"),
            "Events queued in one KeyBy lane"),
    LANE_QUEUE_DEEPEST(Type.GAUGE, "changestream.runtime.lane.queue.deepest", List.of(),
            "Events held by the deepest KeyBy lane (queued plus waiting behind a busy key); a hot key shows here. "
                    + "The key itself is in the periodic stats log line, never a tag"),
    PROCESSING_TIME(Type.TIMER, "changestream.runtime.processing", List.of("outcome"),
            "Duration of one processor attempt, by outcome (success, retry, defer, fail, error, timeout)"),
    RETRIES(Type.COUNTER, "changestream.runtime.retries", List.of(),
            "Attempts scheduled again after a retry outcome or a retriable exception"),
    FINAL_FAILURES(Type.COUNTER, "changestream.runtime.final.failures", List.of("kind"),
            "Events handed to the failure handler, by why they failed"),
    FAILURE_HANDLER_ERRORS(Type.COUNTER, "changestream.runtime.failure.handler.errors", List.of(),
            "Failure handler calls that threw; the event stays parked and is handed over again"),
    DELAY_QUEUE_SIZE(Type.GAUGE, "changestream.runtime.delay.queue.size", List.of(),
            "Events waiting: retry backoff, not-before times, and later events of their keys"),
    PAUSED_PARTITIONS(Type.GAUGE, "changestream.runtime.paused.partitions", List.of(),
            "Assigned partitions currently paused by backpressure or closing"),
    COMMITTED_OFFSET(Type.GAUGE, "changestream.runtime.committed.offset", List.of("topic", "partition"),
            "Last committed offset (next offset to read) of an owned partition"),
    COMMIT_LAG(Type.GAUGE, "changestream.runtime.commit.lag", List.of("topic", "partition"),
            "Offsets taken in and not committed yet (highest tracked + 1 - committed)"),
    CONSUMER_LAG(Type.GAUGE, "changestream.runtime.consumer.lag", List.of("topic", "partition"),
            "Records between the consumer position and the log end"),
    COMMITS(Type.COUNTER, "changestream.runtime.commits", List.of("result"),
            "Offset commit requests, by result (success, failure)"),
    REBALANCES(Type.COUNTER, "changestream.runtime.rebalance.partitions", List.of("kind"),
            "Partitions assigned, revoked or lost in rebalances"),
    DROPPED(Type.COUNTER, "changestream.runtime.dropped", List.of(),
            "Taken-in events dropped unprocessed because their partition was revoked (the new owner reads them)"),
    TIMED_OUT_THREADS(Type.COUNTER, "changestream.runtime.timed.out.threads", List.of(),
            "Processor threads replaced after an attempt ran past the processing timeout"),
    CALLS_RUNNING(Type.GAUGE, "changestream.runtime.calls.running", List.of(),
            "Asynchronous processor calls running now (bounded by maxCalls); 0 with a synchronous processor"),
    BUFFER_USAGE(Type.GAUGE, "changestream.runtime.buffer.usage.ratio", List.of("buffer"),
            "Fill of a bounded buffer, 0 to 1: buffer=bytes (buffered bytes of maxBufferedBytes), lane (the deepest "
                    + "lane of laneCapacity), delay_queue (waiting events of delayQueueCapacity); at 1 partitions pause"),
    BUFFERED_BYTES(Type.GAUGE, "changestream.runtime.buffered.bytes", List.of(),
            "Serialized key and value bytes of records taken in and not done (bounded by maxBufferedBytes)"),
    LANE_ERRORS(Type.COUNTER, "changestream.runtime.lane.errors", List.of(),
            "Exceptions that escaped a lane's own code; the event was retried (a fatal JVM error fails the runtime)"),
    CONSUMER_RESTARTS(Type.COUNTER, "changestream.runtime.consumer.restarts", List.of(),
            "Consumer threads started again after they died");

    /** How the meter measures. */
    public enum Type { COUNTER, GAUGE, TIMER }

    private final Type type;
    private final String meterName;
    private final List<String> tagKeys;
    private final String description;

    RuntimeMeter(Type type, String meterName, List<String> tagKeys, String description) {
        this.type = type;
        this.meterName = meterName;
        this.tagKeys = tagKeys;
        this.description = description;
    }

    public Type type() {
        return type;
    }

    /** The Micrometer name. */
    public String meterName() {
        return meterName;
    }

    /** Tag keys besides {@code group}. */
    public List<String> tagKeys() {
        return tagKeys;
    }

    public String description() {
        return description;
    }
}
