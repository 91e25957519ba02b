package io.changestream.topics;

/** The logical topics of changestream; the full name is the catalog's namespace followed by {@link #suffix()}. */
public enum CatalogTopic {
    /** ChangeEvent envelopes, key entityId. */
    CHANGES("changes"),
    /** Latest run status per pipeline run, key pipelineFqn/runId. */
    PIPELINE_STATUS("pipeline-status"),
    /** Alert definitions, key subscription id, tombstone = deleted. */
    SUBSCRIPTIONS("subscriptions"),
    /** Delivery records, key groupId/subscriptionId/eventId, written to the source event's partition. */
    ALERT_LEDGER("alert-ledger"),
    /** Failed deliveries, key subscriptionId/eventId. */
    ALERT_DLQ("alert-dlq"),
    /** Log chunks of ingestion runs, key pipelineFqn/runId. */
    LOG_CHUNKS("log-chunks"),
    /** Captured rows that could not become events, key sourceTable/logPosition. */
    CDC_DLQ("cdc-dlq"),
    /** Debezium's source offsets. */
    CDC_OFFSETS("cdc-offsets"),
    /** Debezium's schema history (MySQL/MariaDB). */
    CDC_SCHEMA_HISTORY("cdc-schema-history"),
    /**
     * Pending digest and group content of Scheduled and grouped subscriptions (DigestRecord), key
     * subscriptionId/group, so one group's entries and flush markers share a partition.
     */
    ALERT_DIGEST("alert-digest"),
    /** Pairs handed off the commit path to wait longer than the inline budget, key = destination (decision 1120). */
    ALERT_RETRY("alert-retry"),
    /** Group-wide destination state (suspension, retry-path progress), key groupId/destination; compact. */
    ALERT_DESTINATIONS("alert-destinations");

    private final String suffix;

    CatalogTopic(String suffix) {
        this.suffix = suffix;
    }

    /** The name without namespace, as in DESIGN.md. */
    public String suffix() {
        return suffix;
    }
}
