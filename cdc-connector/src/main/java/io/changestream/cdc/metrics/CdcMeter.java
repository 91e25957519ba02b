package io.changestream.cdc.metrics;

/**
 * Every meter of the cdc-connector: Micrometer name (Prometheus name in the comment), unit and description. Tags are
 * bounded: {@code table} (the two captured tables), {@code outcome} ({@link io.changestream.cdc.transform.RowOutcome}),
 * {@code kind} (the fixed list in {@link #ERRORS}), {@code thread} (capture, lease).
 */
public enum CdcMeter {
    /** {@code cdc_events_total{table,outcome}}. */
    EVENTS("cdc.events", null, "Captured rows by source table and outcome (produced, filtered, ignored, dead_lettered)"),
    /** {@code cdc_control_records_total}. */
    CONTROL_RECORDS("cdc.control.records", null,
            "Debezium records that are not rows of a captured table (heartbeats, tombstones); committed, not produced"),
    /** {@code cdc_capture_lag_seconds}. */
    CAPTURE_LAG("cdc.capture.lag", "seconds", "Capture time minus commit time of each captured row"),
    /** {@code cdc_batch_ack_seconds}. */
    BATCH_ACK("cdc.batch.ack", "seconds", "Time from the first send of a batch to the last broker ack"),
    /** {@code cdc_log_position}. */
    LOG_POSITION("cdc.log.position", null,
            "Last log position handed to Kafka: Postgres LSN as a number, or binlog position within its file"),
    /** {@code cdc_last_commit_timestamp_seconds}. */
    LAST_COMMIT("cdc.last.commit.timestamp", "seconds", "Source commit time of the last captured row, epoch seconds"),
    /** {@code cdc_connected}. */
    CONNECTED("cdc.connected", null, "1 when the engine is streaming from the database log, else 0"),
    /** {@code cdc_lease_held}. */
    LEASE_HELD("cdc.lease.held", null, "1 when this instance holds the standby lease (or runs without one), else 0"),
    /** {@code cdc_errors_total{kind}}. */
    ERRORS("cdc.errors", null, "Failures by kind: engine (the engine stopped with an error), produce (no ack in time), "
            + "fenced (a batch refused because the lease was gone), lease (lease session failed, renewal refused or "
            + "expired), engine_close (the engine did not close cleanly), mapping (a row the transform could not map, "
            + "dead-lettered), probe (the streaming MBean could not be read), prerequisites (the database misses a "
            + "setting or grant the capture needs; the engine was not started)"),
    /** {@code cdc_engine_restarts_total}. */
    RESTARTS("cdc.engine.restarts", null, "Engine restarts after a failure or a regained lease"),
    /** {@code cdc_thread_restarts_total{thread}}. */
    THREAD_RESTARTS("cdc.thread.restarts", null,
            "Deaths of a supervised thread (capture, lease), each followed by a restart unless thread.max.restarts "
                    + "is exhausted"),
    /** {@code cdc_lease_epoch}. */
    LEASE_EPOCH("cdc.lease.epoch", null, "Epoch (group generation) of the lease this instance holds, -1 when none");

    private final String meterName;
    private final String baseUnit;
    private final String description;

    CdcMeter(String meterName, String baseUnit, String description) {
        this.meterName = meterName;
        this.baseUnit = baseUnit;
        this.description = description;
    }

    public String meterName() {
        return meterName;
    }

    public String baseUnit() {
        return baseUnit;
    }

    public String description() {
        return description;
    }
}
