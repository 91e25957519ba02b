package io.changestream.cdc.engine;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcException;
import io.changestream.cdc.metrics.CdcMetrics;
import io.changestream.cdc.prereq.PrerequisiteException;
import io.changestream.cdc.prereq.Prerequisites;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Debezium engine and keeps it running: waits for the standby lease when one is configured, checks the
 * database's prerequisites ({@link Prerequisites}: settings and grants; while one is missing the engine is not started,
 * the list is the last error, and the check runs again after the backoff), runs the engine,
 * and restarts it after an exponential backoff with jitter ({@code restart.backoff.*}) when it fails (a Postgres slot
 * held by another reader, a broker or database outage) or when the lease comes back. The engine of one run is fenced
 * by the lease epoch it started under: it is checked after the engine is built and before every produced batch, and
 * the lease stops the engine when it is lost. The capture thread ({@code cdc-capture}) and the lease thread
 * ({@code cdc-lease}) are kept alive by a {@link Supervisor}; {@link #live()} turns false when one cannot be
 * restarted. The idempotent producer the engine's handler sends with is owned here. {@link #close()} stops reading,
 * lets the engine commit the offsets of acked records, then closes lease and producer, bounded by
 * {@code shutdown.timeout.ms}.
 */
public final class CaptureLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureLoop.class);

    /** Role names of the supervised threads (thread {@code cdc-<role>}, tag {@code thread} of the restart meter). */
    static final String CAPTURE = "capture";
    static final String LEASE = "lease";

    private final CdcConfig config;
    private final CdcMetrics metrics;
    private final KafkaProducer<String, byte[]> producer;
    private final GroupLease lease;
    private final StreamingProbe probe;
    private final Supervisor supervisor;
    private final AtomicReference<CaptureState> state = new AtomicReference<>(CaptureState.NEW);
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private volatile boolean stopping;
    private volatile String lastError;
    private volatile Error injected;
    private volatile Thread captureThread;
    private volatile Thread leaseThread;
    /** nanoTime of the last handled batch of the current engine run; 0 = none yet. */
    private final AtomicLong lastBatchNanos = new AtomicLong();
    private final AtomicInteger engineRuns = new AtomicInteger();

    public CaptureLoop(CdcConfig config, MeterRegistry registry) {
        this.config = config;
        CdcConfig.Standby standby = config.standby();
        this.metrics = new CdcMetrics(registry, this::streaming, this::leaseHeld);
        this.probe = new StreamingProbe(config.database().isPostgres() ? "postgres" : "mariadb",
                config.capture().connectorName(), () -> metrics.error("probe"));
        this.lease = standby.leaseEnabled()
                ? new GroupLease(config.kafka().clientProperties(), catalog().cdcOffsets().name(),
                        config.capture().connectorName() + "-lease", standby.instanceId(), standby.sessionTimeoutMs(),
                        standby.heartbeatIntervalMs(), standby.pollIntervalMs(), standby.validityMs(),
                        this::closeEngine, metrics)
                : null;
        metrics.leaseEpoch(() -> lease == null ? GroupLease.NO_EPOCH : lease.held() ? lease.epoch() : -1);
        this.supervisor = new Supervisor(config.capture().restartBackoff(), config.capture().threadMaxRestarts(),
                metrics);
        this.producer = new KafkaProducer<>(producerProperties(config));
    }

    /**
     * Producer defaults sized for the platform's rows (change events of 1–8 KB): Kafka's 16 KiB {@code batch.size}
     * holds two to four of them, so a batch of the engine went out as hundreds of tiny produce batches; 512 KiB holds
     * about a hundred. Any {@code kafka.*} setting of the same name wins (docs/decisions/2401).
     */
    static final Map<String, Object> PRODUCER_DEFAULTS = Map.of(ProducerConfig.BATCH_SIZE_CONFIG, 524_288);

    /**
     * The producer's settings: the pass-through client properties, then ours on top. {@code delivery.timeout.ms} is
     * the ack timeout and {@code request.timeout.ms} leaves room for {@code linger.ms} in it (Kafka refuses a
     * delivery timeout below linger + request timeout).
     */
    static Map<String, Object> producerProperties(CdcConfig config) {
        Map<String, Object> props = new HashMap<>(PRODUCER_DEFAULTS);
        props.putAll(config.kafka().clientProperties());
        props.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, config.kafka().lingerMs(),
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) config.kafka().ackTimeoutMs(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, config.kafka().requestTimeoutMs(),
                ProducerConfig.CLIENT_ID_CONFIG, config.capture().connectorName() + "-producer-"
                        + config.standby().instanceId(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        return props;
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
            leaseThread = supervisor.start(LEASE, lease::run);
        }
        captureThread = supervisor.start(CAPTURE, this::run);
    }

    /** True when this instance holds the lease, or runs without one. */
    private boolean leaseHeld() {
        return lease == null || lease.held();
    }

    /** False once a capture or lease thread died and could not be restarted ({@code /health/live}). */
    public boolean live() {
        return supervisor.live();
    }

    /** Why {@link #live()} is false, else null. */
    public String liveFailure() {
        return supervisor.failure();
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
        return catalog(config);
    }

    /** The topics as this connector creates them: namespace, replication factor, pipeline-status compaction lag. */
    static TopicCatalog catalog(CdcConfig config) {
        return config.transform().catalog().withReplicationFactor(config.kafka().replicationFactor())
                .withStatusMinCompactionLag(Duration.ofMillis(config.kafka().statusMinCompactionLagMs()));
    }

    /** The capture thread's body: lease, engine run, backoff, again; returns only when stopping. */
    private void run() {
        if (state.get() == CaptureState.RUNNING) {
            moveTo(CaptureState.BACKING_OFF); // restarted by the supervisor after dying mid-run
        }
        int failures = 0;
        while (!stopping) {
            long epoch = GroupLease.NO_EPOCH;
            if (lease != null) {
                if (!moveTo(CaptureState.WAITING_FOR_LEASE)) {
                    return;
                }
                try {
                    if (!lease.awaitHeld(() -> stopping || injected != null)) {
                        throwInjected();
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                epoch = lease.epoch();
            }
            if (engineRuns.getAndIncrement() > 0) {
                metrics.restarted();
            }
            if (!moveTo(CaptureState.RUNNING)) {
                return;
            }
            boolean streamed = false;
            try {
                if (config.database().checkPrerequisites()) {
                    Prerequisites.require(config);
                }
                streamed = runEngineOnce(new LeaseFence(lease, config.standby().instanceId(), epoch));
            } catch (PrerequisiteException e) {
                // the engine is not started: it would fail on the first of these, later and naming one
                metrics.error("prerequisites");
                lastError = e.getMessage();
                LOG.error(e.getMessage());
            } catch (RuntimeException e) {
                metrics.error("engine");
                lastError = e.toString();
                LOG.error("engine run failed", e);
            }
            throwInjected();
            if (stopping || !moveTo(CaptureState.BACKING_OFF)) {
                return;
            }
            // a run that streamed starts the backoff afresh; failing runs back off longer each time
            failures = streamed ? 1 : failures + 1;
            long delay = config.capture().restartBackoff().delayMs(failures,
                    ThreadLocalRandom.current().nextDouble());
            LOG.info("engine stopped; restarting in {} ms (attempt {})", delay, failures);
            pause(delay);
            throwInjected();
        }
    }

    private void throwInjected() {
        Error failure = injected;
        if (failure != null) {
            injected = null;
            throw failure;
        }
    }

    /** Runs one engine until it stops; true when it handled at least one batch (it was streaming). */
    private boolean runEngineOnce(LeaseFence fence) {
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
                .notifying(new KafkaChangeSink(producer, config.kafka().ackTimeoutMs(), metrics, lastBatchNanos, fence))
                .build();
        lastBatchNanos.set(0);
        engine = built;
        try {
            if (stopping || injected != null) {
                return false;
            }
            if (!fence.holds()) {
                // the lease went between awaitHeld() and the build: this engine must not read
                metrics.error("fenced");
                LOG.warn("lease epoch {} lost before the engine started; not starting it", fence.epoch());
                return false;
            }
            LOG.info("engine {} starting ({} {}:{}/{}, instance {}, lease epoch {})",
                    config.capture().connectorName(), config.database().kind(), config.database().host(),
                    config.database().port(), config.database().name(), config.standby().instanceId(),
                    lease == null ? "none" : fence.epoch());
            built.run();
            return lastBatchNanos.get() != 0;
        } finally {
            engine = null;
            try {
                built.close();
            } catch (IllegalStateException alreadyStopped) {
                // the engine shut itself down (failure or close from another thread): nothing left to close
            } catch (IOException e) {
                metrics.error("engine_close");
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
                metrics.error("engine_close");
                LOG.warn("engine close failed: {}", e.toString());
            }
        }
    }

    private void pause(long millis) {
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            long left;
            while (!stopping && injected == null && (left = deadline - System.nanoTime()) > 0) {
                wake.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Test hook: the thread {@code cdc-<role>} ({@link #CAPTURE} or {@link #LEASE}) throws {@code failure} as if it had
     * crashed (the capture thread stops its engine first, as a dying thread's cleanup would).
     */
    void crash(String role, Error failure) {
        if (LEASE.equals(role)) {
            lease.crash(failure);
            return;
        }
        injected = failure;
        lock.lock();
        try {
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        closeEngine();
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
        supervisor.closing();
        moveTo(CaptureState.STOPPING);
        lock.lock();
        try {
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        closeEngine();
        join(captureThread, deadline);
        // the engine has stopped: only now may the lease pass to a standby
        if (lease != null) {
            lease.close();
            join(leaseThread, deadline);
        }
        producer.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        moveTo(CaptureState.STOPPED);
        LOG.info("capture stopped");
    }

    private static void join(Thread thread, long deadlineNanos) {
        if (thread == null || !thread.isAlive()) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
