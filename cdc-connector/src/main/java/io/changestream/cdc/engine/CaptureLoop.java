package io.changestream.cdc.engine;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcException;
import io.changestream.cdc.metrics.CdcMetrics;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.TopicSpec;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.debezium.embedded.Connect;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Debezium engine and keeps it running: waits for the standby lease when one is configured, runs the engine,
 * and restarts it after {@code restart.backoff.ms} when it fails (a Postgres slot held by another reader, a broker or
 * database outage) or when the lease comes back. Owns one thread ({@code cdc-capture}), which runs the engine, the
 * idempotent producer the engine's handler sends with, and the lease. {@link #close()} stops reading, lets the engine
 * commit the offsets of acked records, then closes producer and lease, bounded by {@code shutdown.timeout.ms}.
 */
public final class CaptureLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureLoop.class);

    private final CdcConfig config;
    private final CdcMetrics metrics;
    private final KafkaProducer<String, String> producer;
    private final GroupLease lease;
    private final StreamingProbe probe;
    private final Thread thread;
    private final AtomicReference<CaptureState> state = new AtomicReference<>(CaptureState.NEW);
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private volatile boolean stopping;
    private volatile String lastError;
    /** nanoTime of the last handled batch of the current engine run; 0 = none yet. */
    private final AtomicLong lastBatchNanos = new AtomicLong();

    public CaptureLoop(CdcConfig config, MeterRegistry registry) {
        this.config = config;
        this.probe = new StreamingProbe(config.database().isPostgres() ? "postgres" : "mariadb",
                config.capture().connectorName());
        this.lease = config.standby().leaseEnabled()
                ? new GroupLease(config.kafka().clientProperties(), catalog().cdcOffsets().name(),
                        config.capture().connectorName() + "-lease", config.standby().sessionTimeoutMs(),
                        config.standby().pollIntervalMs(), this::closeEngine)
                : null;
        this.metrics = new CdcMetrics(registry, this::streaming, () -> lease == null || lease.held());
        Map<String, Object> producerProps = config.kafka().clientProperties();
        producerProps.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, config.kafka().lingerMs(),
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) config.kafka().ackTimeoutMs(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(config.kafka().ackTimeoutMs(), 30_000),
                ProducerConfig.CLIENT_ID_CONFIG, config.capture().connectorName() + "-producer",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
        this.producer = new KafkaProducer<>(producerProps);
        this.thread = new Thread(this::run, "cdc-capture");
    }

    /** Creates missing topics (when configured), starts the lease and the capture thread. */
    public void start() {
        if (config.kafka().createTopics()) {
            TopicCatalog catalog = catalog();
            List<TopicSpec> specs = new ArrayList<>(List.of(catalog.changes(), catalog.pipelineStatus(),
                    catalog.cdcDlq(), catalog.cdcOffsets()));
            if (!config.database().isPostgres()) {
                specs.add(catalog.cdcSchemaHistory());
            }
            TopicSetup.ensure(config.kafka(), specs, config.kafka().ackTimeoutMs());
        }
        if (lease != null) {
            lease.start();
        }
        thread.start();
    }

    public CaptureState state() {
        return state.get();
    }

    /**
     * Ready: the engine runs and Debezium reports it is connected; on Postgres with heartbeats on, also a batch
     * (heartbeats included) was handled within three heartbeat intervals, because Debezium's "connected" turns true
     * while a standby still retries a slot another instance holds. (On MariaDB the lease already admits one reader,
     * and an idle binlog does not emit heartbeats.)
     */
    public boolean streaming() {
        if (state.get() != CaptureState.RUNNING || !probe.connected()) {
            return false;
        }
        if (!config.database().isPostgres()) {
            return true;
        }
        long heartbeat = config.capture().heartbeatIntervalMs();
        long last = lastBatchNanos.get();
        return heartbeat == 0 || (last != 0 && System.nanoTime() - last < TimeUnit.MILLISECONDS.toNanos(3 * heartbeat));
    }

    public CdcMetrics metrics() {
        return metrics;
    }

    /** The last engine failure, for the health endpoint (null when none). */
    public String lastError() {
        return lastError;
    }

    private TopicCatalog catalog() {
        return config.transform().catalog().withReplicationFactor(config.kafka().replicationFactor());
    }

    private void run() {
        boolean first = true;
        try {
            while (!stopping) {
                if (lease != null) {
                    moveTo(CaptureState.WAITING_FOR_LEASE);
                    if (!lease.awaitHeld(() -> stopping)) {
                        break;
                    }
                }
                if (!first) {
                    metrics.restarted();
                }
                first = false;
                if (!moveTo(CaptureState.RUNNING)) {
                    break;
                }
                try {
                    runEngineOnce();
                } catch (RuntimeException e) {
                    metrics.error("engine");
                    lastError = e.toString();
                    LOG.error("engine run failed; restarting after {} ms", config.capture().restartBackoffMs(), e);
                }
                if (stopping || !moveTo(CaptureState.BACKING_OFF)) {
                    break;
                }
                pause(config.capture().restartBackoffMs());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("capture loop failed", e);
            lastError = e.toString();
        }
    }

    private void runEngineOnce() {
        DebeziumEngine<RecordChangeEvent<SourceRecord>> built = DebeziumEngine
                .create(ChangeEventFormat.of(Connect.class))
                .using(DebeziumProperties.of(config))
                .using((boolean success, String message, Throwable error) -> {
                    if (!success) {
                        metrics.error("engine");
                        lastError = message + (error == null ? "" : ": " + error);
                        LOG.error("engine stopped with an error: {}", message, error);
                    }
                })
                .notifying(new KafkaChangeSink(producer, config.kafka().ackTimeoutMs(), metrics, lastBatchNanos))
                .build();
        lastBatchNanos.set(0);
        engine = built;
        if (stopping) {
            closeEngine();
            return;
        }
        LOG.info("engine {} starting ({} {}:{}/{})", config.capture().connectorName(), config.database().kind(),
                config.database().host(), config.database().port(), config.database().name());
        try {
            built.run();
        } finally {
            engine = null;
            try {
                built.close();
            } catch (IllegalStateException alreadyStopped) {
                // the engine shut itself down (failure or close from another thread)
            } catch (IOException e) {
                LOG.warn("engine did not close cleanly: {}", e.toString());
            }
        }
    }

    /** Stops the running engine (if any); it commits the offsets of processed records. Any thread. */
    private void closeEngine() {
        DebeziumEngine<RecordChangeEvent<SourceRecord>> current = engine;
        if (current != null) {
            try {
                current.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("engine close failed: {}", e.toString());
            }
        }
    }

    private void pause(long millis) throws InterruptedException {
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            long left;
            while (!stopping && (left = deadline - System.nanoTime()) > 0) {
                wake.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The one method that changes state; refuses moves the state table does not allow (and any after a stop). */
    private boolean moveTo(CaptureState next) {
        while (true) {
            CaptureState current = state.get();
            if (current == next) {
                return true;
            }
            if (!next.predecessors().contains(current)) {
                if (current == CaptureState.STOPPING || current == CaptureState.STOPPED) {
                    return false;
                }
                throw new CdcException("illegal capture state change " + current + " -> " + next);
            }
            if (state.compareAndSet(current, next)) {
                LOG.info("capture state {} -> {}", current, next);
                return true;
            }
        }
    }

    /**
     * Graceful stop, bounded by {@code shutdown.timeout.ms}: stop reading, let the engine commit the offsets of acked
     * records, flush and close the producer, leave the lease group. Idempotent; drains nothing beyond the batch in
     * hand (unread log stays in the database, read from the committed offset next time).
     */
    @Override
    public void close() {
        if (state.get() == CaptureState.STOPPED) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.capture().shutdownTimeoutMs());
        stopping = true;
        moveTo(CaptureState.STOPPING);
        lock.lock();
        try {
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        closeEngine();
        if (thread.isAlive()) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (lease != null) {
            lease.close();
        }
        producer.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        moveTo(CaptureState.STOPPED);
        LOG.info("capture stopped");
    }
}
