package io.changestream.ops.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/** {@code topics apply|describe} against the real broker, each run in its own namespace. */
class TopicsCommandIT {

    private final KafkaBroker broker = Brokers.shared();

    private Cli.Result run(String... args) {
        return Cli.run(Map.of("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()), args);
    }

    @Test
    void applyCreatesTheCatalogOnceAndDescribeShowsItMatches() throws Exception {
        String ns = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
        int topics = new TopicCatalog(ns).all().size();
        Cli.Result first = run("topics", "apply", "--namespace", ns, "--replication-factor", "1",
                "--changes-partitions", "3");
        assertEquals(0, first.code(), first.err());
        assertEquals(topics, first.out().lines().filter(l -> l.contains(" created ")).count(), first.out());

        Cli.Result again = run("topics", "apply", "--namespace", ns, "--replication-factor", "1",
                "--changes-partitions", "3");
        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().contains("nothing changed"), again.out());

        Cli.Result described = run("topics", "describe", "--namespace", ns, "--replication-factor", "1",
                "--changes-partitions", "3");
        assertEquals(0, described.code(), described.err());
        assertEquals(topics, described.out().lines().filter(l -> l.startsWith(ns) && l.contains(" ok ")).count(),
                described.out());

        // drift: someone changes retention; describe shows it, apply puts it back and says so
        try (Admin admin = broker.admin()) {
            ConfigResource changes = new ConfigResource(ConfigResource.Type.TOPIC, ns + "changes");
            Map<ConfigResource, Collection<AlterConfigOp>> ops = Map.of(changes, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)));
            admin.incrementalAlterConfigs(ops).all().get(30, TimeUnit.SECONDS);
        }
        // config changes reach the broker's view a moment after the controller accepted them
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Cli.Result drift = run("topics", "describe", "--namespace", ns, "--replication-factor", "1",
                    "--changes-partitions", "3");
            assertTrue(drift.out().lines().anyMatch(l -> l.startsWith(ns + "changes ") && l.contains("differs")
                    && l.contains("retention.ms=1000")), drift.out());
        });
        Cli.Result fix = run("topics", "apply", "--namespace", ns, "--replication-factor", "1",
                "--changes-partitions", "3");
        assertTrue(fix.out().lines().anyMatch(l -> l.startsWith(ns + "changes ") && l.contains("retention.ms")),
                fix.out());
    }

    @Test
    void badNamespaceIsAUsageError() {
        Cli.Result r = run("topics", "describe", "--namespace", "bad name!");
        assertEquals(2, r.code(), r.out() + r.err());
    }
}
