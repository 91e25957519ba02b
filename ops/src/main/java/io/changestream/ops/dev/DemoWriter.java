package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo writer: on its own thread, inserts a realistic {@code change_event} row every {@code eventInterval}, and
 * runs ingestion pipelines one after another: a run writes its status row (running), appends log lines to
 * {@code <logsRoot>/<fqn>/<runId>/logs.txt} once per tick for {@code linesPerRun} ticks, then writes the terminal
 * status (success). Started and closed by the dev stack's thread.
 */
public final class DemoWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoWriter.class);

    /** The pipeline whose runs the demo writes. */
    public static final String PIPELINE_FQN = "mysql_prod.metadata_ingestion";
    /** Tables the demo changes. */
    static final List<String> TABLES = List.of("mysql_prod.shop.public.orders", "mysql_prod.shop.public.customers",
            "mysql_prod.shop.public.payments", "mysql_prod.crm.public.accounts");
    private static final List<String> USERS = List.of("alice", "bob", "ingestion-bot");
    private static final List<String> TAGS = List.of("PII.Sensitive", "Tier.Tier1", "Finance.Revenue");

    private final DataSource db;
    private final Path logsRoot;
    private final Duration eventInterval;
    private final int linesPerRun;
    private final Clock clock;
    private final Random random = new Random(42);
    private final Thread thread;
    private final AtomicLong eventsWritten = new AtomicLong();
    private final AtomicLong runsFinished = new AtomicLong();
    private volatile boolean running = true;
    private volatile String currentRun;
    private final java.util.concurrent.CountDownLatch firstRun = new java.util.concurrent.CountDownLatch(1);

    /**
     * @param db            the database holding the platform's tables
     * @param logsRoot      log-tailer's storage root
     * @param eventInterval pause between two change events (also one log tick)
     * @param linesPerRun   log lines (ticks) per pipeline run
     * @param clock         time source of the rows' timestamps
     */
    public DemoWriter(DataSource db, Path logsRoot, Duration eventInterval, int linesPerRun, Clock clock) {
        this.db = Objects.requireNonNull(db, "db");
        this.logsRoot = Objects.requireNonNull(logsRoot, "logsRoot");
        this.eventInterval = Objects.requireNonNull(eventInterval, "eventInterval");
        this.linesPerRun = linesPerRun;
        this.clock = Objects.requireNonNull(clock, "clock");
        if (eventInterval.toMillis() < 10) {
            throw new OpsException("demo event interval must be >= 10 ms, was " + eventInterval);
        }
        if (linesPerRun < 1) {
            throw new OpsException("demo lines per run must be >= 1, was " + linesPerRun);
        }
        this.thread = new Thread(this::loop, "dev-demo-writer");
        this.thread.setDaemon(true);
    }

    /** Starts the writer thread. */
    public DemoWriter start() {
        thread.start();
        return this;
    }

    /** Change events inserted so far. */
    public long eventsWritten() {
        return eventsWritten.get();
    }

    /** Pipeline runs that reached their terminal status. */
    public long runsFinished() {
        return runsFinished.get();
    }

    /** The run being written now (or the last one), or null before the first. */
    public String currentRun() {
        return currentRun;
    }

    /** The run being written now, waiting at most {@code timeout} for the first one to start; null if none did. */
    public String awaitCurrentRun(Duration timeout) throws InterruptedException {
        firstRun.await(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        return currentRun;
    }

    private void loop() {
        int tick = 0;
        String runId = null;
        try {
            while (running) {
                if (runId == null) {
                    runId = "run-" + Instant.now(clock).toEpochMilli();
                    currentRun = runId;
                    firstRun.countDown();
                    Files.createDirectories(logsRoot.resolve(PIPELINE_FQN).resolve(runId));
                    status(runId, "running");
                    tick = 0;
                }
                insertChangeEvent();
                appendLog(runId, tick);
                tick++;
                if (tick >= linesPerRun) {
                    appendLine(runId, "Workflow finished: " + linesPerRun + " steps, status success");
                    status(runId, "success");
                    runsFinished.incrementAndGet();
                    runId = null;
                }
                Thread.sleep(eventInterval.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | SQLException | RuntimeException e) {
            if (running) {
                LOG.error("the demo writer stopped: {}", e.toString());
            }
        }
    }

    private void insertChangeEvent() throws SQLException {
        String fqn = TABLES.get(random.nextInt(TABLES.size()));
        String entityId = UUID.nameUUIDFromBytes(fqn.getBytes(StandardCharsets.UTF_8)).toString();
        String tag = TAGS.get(random.nextInt(TAGS.size()));
        long now = Instant.now(clock).toEpochMilli();
        long n = eventsWritten.get();
        String json = "{\"id\":\"" + UUID.randomUUID() + "\",\"eventType\":\"entityUpdated\",\"entityType\":\"table\","
                + "\"entityId\":\"" + entityId + "\",\"entityFullyQualifiedName\":\"" + fqn + "\","
                + "\"userName\":\"" + USERS.get(random.nextInt(USERS.size())) + "\",\"timestamp\":" + now + ","
                + "\"previousVersion\":" + (1 + n / 10.0) + ",\"currentVersion\":" + (1.1 + n / 10.0) + ","
                + "\"changeDescription\":{\"fieldsAdded\":[{\"name\":\"tags\",\"newValue\":\"[{\\\"tagFQN\\\":\\\""
                + tag + "\\\"}]\"}],\"fieldsUpdated\":[],\"fieldsDeleted\":[],\"previousVersion\":" + (1 + n / 10.0)
                + "},\"entity\":{\"id\":\"" + entityId + "\",\"name\":\"" + fqn.substring(fqn.lastIndexOf('.') + 1)
                + "\",\"fullyQualifiedName\":\"" + fqn + "\",\"tableType\":\"Regular\"}}";
        try (Connection c = db.getConnection();
             PreparedStatement s = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            s.setString(1, json);
            s.executeUpdate();
        }
        eventsWritten.incrementAndGet();
    }

    private void status(String runId, String state) throws SQLException {
        long now = Instant.now(clock).toEpochMilli();
        String json = "{\"pipelineFqn\":\"" + PIPELINE_FQN + "\",\"runId\":\"" + runId + "\",\"pipelineState\":\""
                + state + "\",\"startDate\":" + now + ",\"timestamp\":" + now
                + ("success".equals(state) ? ",\"endDate\":" + now : "") + "}";
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) "
                        + "VALUES (?, 'ingestionPipeline.pipelineStatus', 'pipelineStatus', ?::jsonb)")) {
            s.setString(1, PIPELINE_FQN);
            s.setString(2, json);
            s.executeUpdate();
        }
    }

    private void appendLog(String runId, int tick) throws IOException {
        String table = TABLES.get(tick % TABLES.size());
        appendLine(runId, "[" + Instant.now(clock) + "] INFO step " + (tick + 1) + "/" + linesPerRun
                + ": ingested metadata of " + table);
    }

    private void appendLine(String runId, String line) throws IOException {
        Files.writeString(logsRoot.resolve(PIPELINE_FQN).resolve(runId).resolve("logs.txt"), line + "\n",
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /** Stops the writer (at most one interval plus one insert later). Idempotent. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(Math.max(1_000, eventInterval.toMillis() * 2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
