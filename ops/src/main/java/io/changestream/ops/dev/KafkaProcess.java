package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import java.io.IOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka broker (combined broker + controller) run as a child process from this JVM's own
 * classpath ({@code kafka.Kafka}), with its log directory under the dev data directory so topics survive restarts.
 * The directory is formatted on first use. {@link #close()} sends SIGTERM and waits for a clean shutdown (bounded),
 * then kills. Started and closed by the dev stack's thread.
 */
public final class KafkaProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaProcess.class);

    private final Process process;
    private final Path log;
    private final int port;
    private final Duration stopTimeout;

    private KafkaProcess(Process process, Path log, int port, Duration stopTimeout) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.stopTimeout = stopTimeout;
    }

    /**
     * Formats {@code dir} when needed and starts the broker on {@code port} (its controller on {@code port + 1}).
     *
     * @param startTimeout how long to wait for the port to accept connections
     * @param stopTimeout  how long {@link #close()} waits for a clean shutdown before killing
     */
    public static KafkaProcess start(Path dir, int port, Duration startTimeout, Duration stopTimeout) {
        try {
            Path logs = dir.resolve("data");
            Files.createDirectories(logs);
            Path config = dir.resolve("server.properties");
            writeConfig(config, logs, port);
            if (!Files.exists(logs.resolve("meta.properties"))) {
                String clusterId = Uuid.randomUuid().toString();
                run(dir, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", config.toString(), "--standalone");
                LOG.info("formatted the Kafka log directory {} (cluster {})", logs, clusterId);
            }
            List<String> command = java("kafka.Kafka", config.toString());
            Path log = dir.resolve("broker.log");
            Process process = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            KafkaProcess broker = new KafkaProcess(process, log, port, stopTimeout);
            broker.awaitPort(startTimeout);
            return broker;
        } catch (IOException e) {
            throw new OpsException("the Kafka broker could not start in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** {@code host:port} for clients. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    private void awaitPort(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new OpsException("the Kafka broker exited with " + process.exitValue() + " during start ("
                        + log + "): " + tail(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    close();
                    throw new OpsException("the Kafka broker did not open port " + port + " within " + timeout);
                }
            }
            try {
                process.waitFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new OpsException("interrupted while the Kafka broker started", e);
            }
        }
    }

    /** The last lines of the broker's log, for a failure message. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private static void writeConfig(Path file, Path logs, int port) throws IOException {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + (port + 1));
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("controller.quorum.bootstrap.servers", "127.0.0.1:" + (port + 1));
        p.setProperty("log.dirs", logs.toAbsolutePath().toString());
        p.setProperty("num.partitions", "1");
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        p.setProperty("auto.create.topics.enable", "false");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "changestream dev broker (written at every start)");
        }
    }

    private static void run(Path dir, String mainClass, String... args) throws IOException {
        List<String> command = java(mainClass, args);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new OpsException(mainClass + " failed: " + new String(out, StandardCharsets.UTF_8).trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new OpsException("interrupted while running " + mainClass, e);
        }
    }

    private static List<String> java(String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms128m");
        command.add("-Xmx512m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("-Dchangestream.log.level=WARN");
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    /** Stops the broker: SIGTERM, a bounded wait for its clean shutdown, then a kill. Idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("the Kafka broker did not stop within {}; killing it", stopTimeout);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
