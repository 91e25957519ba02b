package io.changestream.topics.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The provisioner against the real (in-JVM KRaft) broker of the testkit. Each test uses its own namespace. */
class TopicProvisionerIT {

    private static final Duration METADATA_WAIT = Duration.ofSeconds(30);

    private static KafkaBroker broker;
    private static Admin admin;

    @BeforeAll
    static void connect() {
        broker = Brokers.shared();
        admin = broker.admin();
    }

    @AfterAll
    static void disconnect() {
        admin.close();
    }

    private static TopicCatalog freshCatalog() {
        return new TopicCatalog("it-" + UUID.randomUUID().toString().substring(0, 8) + ".")
                .withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 2)
                .withPartitions(CatalogTopic.PIPELINE_STATUS, 2)
                .withPartitions(CatalogTopic.LOG_CHUNKS, 2)
                .withPartitions(CatalogTopic.ALERT_DLQ, 2);
    }

    private static Map<String, String> configsOf(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
        Map<String, String> values = new java.util.HashMap<>();
        for (ConfigEntry entry : config.entries()) {
            values.put(entry.name(), entry.value());
        }
        return values;
    }

    /** Creates a topic the way another tool would, and waits until the broker describes it. */
    private static void createElsewhere(NewTopic topic) throws Exception {
        admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        await().atMost(METADATA_WAIT).ignoreExceptions()
                .until(() -> partitionsOf(topic.name()) == topic.numPartitions());
    }

    private static int partitionsOf(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().size();
    }

    @Test
    void createsEveryTopicWithItsConfigsThenChangesNothing() throws Exception {
        TopicCatalog catalog = freshCatalog();
        TopicProvisioner provisioner = new TopicProvisioner(admin);

        ProvisioningReport first = provisioner.provision(catalog.all());
        assertEquals(catalog.all().stream().map(TopicSpec::name).toList(), first.created());
        assertTrue(first.unchanged().isEmpty(), first.toString());
        for (TopicSpec spec : catalog.all()) {
            assertEquals(spec.partitions(), partitionsOf(spec.name()), spec.name());
            Map<String, String> actual = configsOf(spec.name());
            spec.configs().forEach((key, value) -> assertTrue(
                    TopicProvisioner.sameValue(key, actual.get(key), value),
                    spec.name() + " " + key + "=" + actual.get(key) + ", wanted " + value));
        }
        assertEquals("compact,delete", configsOf(catalog.alertLedger().name()).get("cleanup.policy"));
        assertEquals("-1", configsOf(catalog.cdcSchemaHistory().name()).get("retention.ms"));

        ProvisioningReport second = provisioner.provision(catalog.all());
        assertTrue(second.noChanges(), second.toString());
        assertEquals(first.created(), second.unchanged());
        assertTrue(second.warnings().isEmpty(), second.toString());
    }

    @Test
    void pipelineStatusGetsItsMinCompactionLagCreatedOrExisting() throws Exception {
        TopicCatalog catalog = freshCatalog();
        TopicProvisioner provisioner = new TopicProvisioner(admin);
        String status = catalog.pipelineStatus().name();
        // an existing status topic made by an older version: compacted, no lag
        createElsewhere(new NewTopic(status, 2, (short) 1).configs(Map.of("cleanup.policy", "compact")));
        assertEquals("0", configsOf(status).get("min.compaction.lag.ms"), "the broker's default");

        ProvisioningReport report = provisioner.provision(List.of(catalog.pipelineStatus()));
        assertEquals(new ProvisioningReport.Change<>("0", "604800000"),
                report.configsChanged().get(status).get("min.compaction.lag.ms"), report.toString());
        assertEquals("604800000", configsOf(status).get("min.compaction.lag.ms"));

        TopicCatalog fresh = freshCatalog().withStatusMinCompactionLag(Duration.ofHours(2));
        provisioner.provision(List.of(fresh.pipelineStatus()));
        assertEquals("7200000", configsOf(fresh.pipelineStatus().name()).get("min.compaction.lag.ms"),
                "a created topic carries the configured lag");
    }

    @Test
    void raisesPartitionsOfChangesAndTheLedgerTogether() throws Exception {
        TopicCatalog catalog = freshCatalog();
        TopicProvisioner provisioner = new TopicProvisioner(admin);
        provisioner.provision(catalog.all());

        TopicCatalog grown = catalog.withPartitions(CatalogTopic.CHANGES, 4);
        ProvisioningReport report = provisioner.provision(grown.all());
        assertEquals(Map.of(grown.changes().name(), new ProvisioningReport.Change<>(2, 4),
                grown.alertLedger().name(), new ProvisioningReport.Change<>(2, 4)), report.partitionsRaised());
        assertTrue(report.created().isEmpty());
        assertEquals(4, partitionsOf(grown.changes().name()));
        assertEquals(4, partitionsOf(grown.alertLedger().name()));
        assertTrue(provisioner.provision(grown.all()).noChanges());
    }

    @Test
    void restoresConfigsThatDriftedAndLeavesOthersAlone() throws Exception {
        TopicCatalog catalog = freshCatalog();
        TopicProvisioner provisioner = new TopicProvisioner(admin);
        provisioner.provision(catalog.all());
        String logChunks = catalog.logChunks().name();
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, logChunks);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);
        // the broker applies config changes from the metadata log a moment after the controller accepted them
        await().atMost(METADATA_WAIT).until(() -> "1000".equals(configsOf(logChunks).get("retention.ms")));

        ProvisioningReport report = provisioner.provision(catalog.all());
        assertEquals(Map.of(logChunks, Map.of(
                        "retention.ms", new ProvisioningReport.Change<>("1000", "86400000"),
                        "cleanup.policy", new ProvisioningReport.Change<>("compact", "delete"))),
                report.configsChanged());
        Map<String, String> configs = configsOf(logChunks);
        assertEquals("86400000", configs.get("retention.ms"));
        assertEquals("delete", configs.get("cleanup.policy"));
        assertEquals("2000000", configs.get("max.message.bytes"), "configs outside the spec are left alone");
    }

    @Test
    void alignsTopicsSomeoneElseCreatedAndWarnsAboutWhatItCannotFix() throws Exception {
        TopicCatalog catalog = freshCatalog();
        // Debezium creates its offsets topic itself, with only cleanup.policy=compact
        createElsewhere(new NewTopic(catalog.cdcOffsets().name(), 1, (short) 1)
                .configs(Map.of("cleanup.policy", "compact")));
        createElsewhere(new NewTopic(catalog.logChunks().name(), 5, (short) 1));

        ProvisioningReport report = new TopicProvisioner(admin).provision(catalog.all());
        assertTrue(!report.created().contains(catalog.cdcOffsets().name()), report.toString());
        assertEquals(catalog.all().size() - 2, report.created().size(), report.toString());
        assertEquals(Map.of("retention.ms", new ProvisioningReport.Change<>("604800000", "86400000")),
                report.configsChanged().get(catalog.logChunks().name()), "broker default 7 d becomes 1 d");
        assertEquals(null, report.configsChanged().get(catalog.cdcOffsets().name()), report.toString());
        assertEquals(5, partitionsOf(catalog.logChunks().name()));
        assertTrue(report.warnings().stream().anyMatch(w -> w.startsWith(catalog.logChunks().name() + " has 5")),
                report.toString());
    }

    @Test
    void concurrentProvisionersAgree() throws Exception {
        TopicCatalog catalog = freshCatalog();
        int instances = 4;
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        List<Admin> admins = new ArrayList<>();
        try {
            List<CompletableFuture<ProvisioningReport>> runs = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                Admin own = broker.admin();
                admins.add(own);
                runs.add(CompletableFuture.supplyAsync(() -> new TopicProvisioner(own).provision(catalog.all()), pool));
            }
            Set<String> createdByAnyone = new HashSet<>();
            int createdTotal = 0;
            for (var run : runs) {
                ProvisioningReport report = run.get(60, TimeUnit.SECONDS);
                createdByAnyone.addAll(report.created());
                createdTotal += report.created().size();
            }
            assertEquals(catalog.all().size(), createdTotal, "each topic was created exactly once");
            assertEquals(catalog.all().size(), createdByAnyone.size());
            assertTrue(new TopicProvisioner(admin).provision(catalog.all()).noChanges());
        } finally {
            pool.shutdownNow();
            admins.forEach(Admin::close);
        }
    }

    @Test
    void aReplicationFactorTheClusterCannotMeetFailsNamingTheTopic() {
        TopicCatalog production = new TopicCatalog("it-" + UUID.randomUUID().toString().substring(0, 8) + ".");
        ProvisioningException e = assertThrows(ProvisioningException.class,
                () -> new TopicProvisioner(admin).provision(List.of(production.changes())));
        assertTrue(e.getMessage().contains(production.changes().name()), e.getMessage());
        assertInstanceOf(InvalidReplicationFactorException.class, e.getCause());
    }
}
