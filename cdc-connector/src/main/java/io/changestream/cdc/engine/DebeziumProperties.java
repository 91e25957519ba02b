package io.changestream.cdc.engine;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.transform.ChangeEventTransform;
import io.changestream.topics.TopicCatalog;
import java.util.Properties;

/**
 * Translates a {@link CdcConfig} into the Debezium engine's properties: connector, offsets in {@code cdc-offsets},
 * our SMT, pgoutput with a filtered publication and a named slot, or the MariaDB binlog with schema history in
 * {@code cdc-schema-history}. The pass-through Kafka client properties ({@link CdcConfig.Kafka#client()}) go to the
 * offset store as worker-level keys and to the schema history under its producer/consumer prefixes. Stateless.
 */
public final class DebeziumProperties {

    /** Prefixes of the schema history's own producer and consumer (which also backs its admin client). */
    static final String HISTORY_PRODUCER = "schema.history.internal.producer.";
    static final String HISTORY_CONSUMER = "schema.history.internal.consumer.";

    /** Alias of our transform in the engine's {@code transforms} list. */
    static final String TRANSFORM = "changestream";

    private DebeziumProperties() {
    }

    public static Properties of(CdcConfig config) {
        CdcConfig.Database db = config.database();
        CdcConfig.Capture capture = config.capture();
        TopicCatalog catalog = config.transform().catalog()
                .withReplicationFactor(config.kafka().replicationFactor());
        Properties p = new Properties();
        p.setProperty("name", capture.connectorName());
        p.setProperty("topic.prefix", capture.connectorName());
        p.setProperty("bootstrap.servers", config.kafka().bootstrapServers());
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.KafkaOffsetBackingStore");
        p.setProperty("offset.storage.topic", catalog.cdcOffsets().name());
        p.setProperty("offset.storage.partitions", "1");
        p.setProperty("offset.storage.replication.factor", Short.toString(config.kafka().replicationFactor()));
        p.setProperty("offset.flush.interval.ms", Long.toString(capture.offsetFlushIntervalMs()));
        p.setProperty("offset.flush.timeout.ms", Long.toString(Math.min(5_000, capture.shutdownTimeoutMs())));
        p.setProperty("database.hostname", db.host());
        p.setProperty("database.port", Integer.toString(db.port()));
        p.setProperty("database.user", db.user());
        p.setProperty("database.password", db.password());
        p.setProperty("snapshot.mode", capture.snapshotMode());
        p.setProperty("poll.interval.ms", Long.toString(capture.pollIntervalMs()));
        p.setProperty("max.batch.size", Integer.toString(capture.maxBatchSize()));
        p.setProperty("max.queue.size", Integer.toString(capture.maxQueueSize()));
        // bytes as well as records: 8,192 rows of up to max.row.bytes would otherwise be gigabytes
        p.setProperty("max.queue.size.in.bytes", Long.toString(capture.maxQueueBytes()));
        if (capture.heartbeatIntervalMs() > 0) {
            p.setProperty("heartbeat.interval.ms", Long.toString(capture.heartbeatIntervalMs()));
        }
        // the engine's own retries of connection errors follow the same named backoff (doubling, capped)
        p.setProperty("errors.retry.delay.initial.ms", Long.toString(capture.restartBackoff().initialMs()));
        p.setProperty("errors.retry.delay.max.ms", Long.toString(capture.restartBackoff().maxMs()));
        p.setProperty("tombstones.on.delete", "false");
        // Debezium's __debezium.context.* headers: built for every record, and not what changestream's records carry
        p.setProperty("extended.headers.enabled", "false");
        p.setProperty("record.processing.order", "ORDERED");
        String container = db.tableContainer();
        p.setProperty("table.include.list", String.join(",",
                quoteDots(container) + "\\." + quoteDots(config.transform().changeEventTable()),
                quoteDots(container) + "\\." + quoteDots(config.transform().pipelineStatusTable())));
        if (db.isPostgres()) {
            p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
            p.setProperty("database.dbname", db.name());
            p.setProperty("plugin.name", "pgoutput");
            p.setProperty("slot.name", capture.slotName());
            p.setProperty("publication.name", capture.publicationName());
            p.setProperty("publication.autocreate.mode", "filtered");
            p.setProperty("slot.drop.on.stop", Boolean.toString(capture.slotDropOnStop()));
            p.setProperty("slot.max.retries", Integer.toString(capture.slotMaxRetries()));
            p.setProperty("slot.retry.delay.ms", Long.toString(capture.slotRetryDelayMs()));
        } else {
            p.setProperty("connector.class", "io.debezium.connector.mariadb.MariaDbConnector");
            p.setProperty("database.server.id", Long.toString(db.serverId()));
            p.setProperty("database.include.list", quoteDots(db.name()));
            p.setProperty("include.schema.changes", "false");
            p.setProperty("schema.history.internal", "io.debezium.storage.kafka.history.KafkaSchemaHistory");
            p.setProperty("schema.history.internal.kafka.topic", catalog.cdcSchemaHistory().name());
            p.setProperty("schema.history.internal.kafka.bootstrap.servers", config.kafka().bootstrapServers());
            p.setProperty("schema.history.internal.store.only.captured.tables.ddl", "true");
            config.kafka().client().forEach((k, v) -> {
                p.setProperty(HISTORY_PRODUCER + k, v);
                p.setProperty(HISTORY_CONSUMER + k, v);
            });
        }
        // worker-level client properties: the offset store's producer, consumer and admin take the engine's
        // top-level keys (Connect's KafkaOffsetBackingStore uses the worker config's originals); engine keys win
        config.kafka().client().forEach(p::putIfAbsent);
        p.setProperty("transforms", TRANSFORM);
        p.setProperty("transforms." + TRANSFORM + ".type", ChangeEventTransform.class.getName());
        config.transform().toMap().forEach((k, v) -> p.setProperty("transforms." + TRANSFORM + "." + k, v));
        // the mapped JSON stays the UTF-8 bytes it was written as, up to the producer
        p.setProperty("transforms." + TRANSFORM + "." + ChangeEventTransform.VALUE_FORMAT, "bytes");
        return p;
    }

    /** Include lists are regular expressions: a dot in a name must match only a dot. */
    private static String quoteDots(String name) {
        return name.replace(".", "\\.");
    }
}
