package io.changestream.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A single-node KRaft broker (combined broker + controller) in this JVM, built with Kafka's own
 * test kit. Replication factors and min ISR are 1 and the initial rebalance delay is 0, so consumer
 * groups form at once. Up in about two seconds.
 *
 * <p>The broker's data lives in a directory of its own that only {@link #close()} deletes, after the broker has
 * stopped. Kafka's test kit would otherwise make its own and register a JVM shutdown hook that deletes it: at JVM
 * exit that hook ran beside the one stopping the shared broker ({@link Brokers#shared()}), the directory vanished
 * under the running broker, and a checkpoint write that hit the gap made the broker halt the JVM with status 1 —
 * a test fork that had passed every test exited non-zero (docs/decisions/1701).
 */
public final class EmbeddedKafkaBroker implements KafkaBroker {

    private final KafkaClusterTestKit cluster;
    private final String bootstrapServers;
    private volatile boolean closed;

    private EmbeddedKafkaBroker(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
        this.bootstrapServers = cluster.bootstrapServers();
    }

    /** Starts a broker with the default test settings plus {@code overrides}; fails loudly. */
    public static EmbeddedKafkaBroker start(Map<String, String> overrides) {
        KafkaClusterTestKit cluster = null;
        Path dir = null;
        try {
            dir = Files.createTempDirectory("cs-kafka-");
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setBaseDirectory(dir)
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes)
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    .setConfigProp("offsets.topic.num.partitions", "4")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
                    .setConfigProp("share.coordinator.state.topic.min.isr", "1")
                    .setConfigProp("default.replication.factor", "1")
                    .setConfigProp("min.insync.replicas", "1")
                    .setConfigProp("auto.create.topics.enable", "true")
                    .setConfigProp("num.partitions", "1")
                    .setConfigProp("log.flush.interval.messages", Long.toString(Long.MAX_VALUE))
                    .setDeleteOnClose(true);
            overrides.forEach(builder::setConfigProp);
            cluster = builder.build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new EmbeddedKafkaBroker(cluster);
        } catch (Exception e) {
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            } else if (dir != null) {
                deleteQuietly(dir);
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HarnessException("the in-JVM KRaft Kafka broker did not start", e);
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public String kind() {
        return "embedded-kraft";
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cluster.close();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HarnessException("the in-JVM Kafka broker did not close cleanly", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: an empty temporary directory the broker never used
        }
    }
}
