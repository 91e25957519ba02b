package io.changestream.topics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicCatalogTest {

    private final TopicCatalog catalog = TopicCatalog.defaults();

    @Test
    void everyTopicOfTheDesignIsInTheCatalogWithTheDefaultNamespace() {
        var names = catalog.all().stream().map(TopicSpec::name).toList();
        assertEquals(java.util.List.of("cs.changes", "cs.pipeline-status", "cs.subscriptions", "cs.alert-ledger",
                "cs.alert-dlq", "cs.log-chunks", "cs.cdc-dlq", "cs.cdc-offsets", "cs.cdc-schema-history",
                "cs.alert-digest", "cs.alert-retry", "cs.alert-destinations"), names);
        assertEquals(names.size(), new HashSet<>(names).size());
    }

    @Test
    void defaultsFollowTheDesign() {
        TopicSpec changes = catalog.changes();
        assertEquals(12, changes.partitions());
        assertEquals(CleanupPolicy.DELETE, changes.cleanupPolicy());
        assertEquals(Duration.ofDays(7), changes.retention());
        assertEquals(ChangeEvent.class, changes.valueType());
        assertEquals(String.class, changes.keyType());

        assertEquals(CleanupPolicy.COMPACT, catalog.pipelineStatus().cleanupPolicy());
        assertNull(catalog.pipelineStatus().retention());
        assertEquals(CleanupPolicy.COMPACT, catalog.subscriptions().cleanupPolicy());
        assertEquals(1, catalog.subscriptions().partitions());
        assertEquals(EventSubscription.class, catalog.subscriptions().valueType());

        assertEquals(CleanupPolicy.COMPACT_DELETE, catalog.alertLedger().cleanupPolicy());
        assertEquals(changes.partitions(), catalog.alertLedger().partitions());
        assertEquals(DeliveryRecord.class, catalog.alertLedger().valueType());

        assertEquals(Duration.ofDays(30), catalog.alertDlq().retention());
        assertEquals(Duration.ofDays(1), catalog.logChunks().retention());
        assertEquals(Duration.ofDays(30), catalog.cdcDlq().retention());
        assertEquals(CleanupPolicy.COMPACT, catalog.cdcOffsets().cleanupPolicy());
        assertEquals(1, catalog.cdcOffsets().partitions());
        assertEquals(CleanupPolicy.DELETE, catalog.cdcSchemaHistory().cleanupPolicy());
        assertEquals(TopicSpec.RETAIN_FOREVER, catalog.cdcSchemaHistory().retention());
        assertEquals(1, catalog.cdcSchemaHistory().partitions());
        assertEquals(byte[].class, catalog.cdcSchemaHistory().valueType());

        assertEquals(CleanupPolicy.DELETE, catalog.alertRetry().cleanupPolicy());
        assertEquals(Duration.ofDays(30), catalog.alertRetry().retention());
        assertEquals(CleanupPolicy.COMPACT, catalog.alertDestinations().cleanupPolicy());
        assertEquals(1, catalog.alertDestinations().partitions());

        assertEquals(3, changes.replicationFactor());
        assertEquals(2, changes.minInsyncReplicas());
    }

    @Test
    void pipelineStatusKeepsIntermediateRunStatesForTheCompactionLag() {
        assertEquals(TopicCatalog.DEFAULT_STATUS_MIN_COMPACTION_LAG, catalog.statusMinCompactionLag());
        TopicCatalog oneHour = catalog.withStatusMinCompactionLag(java.time.Duration.ofHours(1))
                .withReplicationFactor((short) 1).withPartitions(CatalogTopic.CHANGES, 3);
        assertEquals("3600000", oneHour.pipelineStatus().configs().get("min.compaction.lag.ms"),
                "the lag survives the other with… methods");
        assertEquals(null, oneHour.subscriptions().configs().get("min.compaction.lag.ms"), "status topic only");
        org.junit.jupiter.api.Assertions.assertThrows(TopicsException.class,
                () -> catalog.withStatusMinCompactionLag(java.time.Duration.ofMillis(-1)));
    }

    @Test
    void configsCarryPolicyRetentionAndMinIsr() {
        assertEquals(Map.of("cleanup.policy", "delete", "retention.ms", "604800000", "min.insync.replicas", "2"),
                catalog.changes().configs());
        assertEquals(Map.of("cleanup.policy", "compact,delete", "retention.ms", "604800000",
                "min.insync.replicas", "2"), catalog.alertLedger().configs());
        assertEquals(Map.of("cleanup.policy", "compact", "min.insync.replicas", "2"),
                catalog.subscriptions().configs());
        assertEquals(Map.of("cleanup.policy", "compact", "min.insync.replicas", "2", "min.compaction.lag.ms",
                "604800000"), catalog.pipelineStatus().configs());
        assertEquals(Map.of("cleanup.policy", "delete", "retention.ms", "-1", "retention.bytes", "-1",
                "min.insync.replicas", "2"), catalog.cdcSchemaHistory().configs());
        var newTopic = catalog.changes().newTopic();
        assertEquals("cs.changes", newTopic.name());
        assertEquals(12, newTopic.numPartitions());
        assertEquals("delete", newTopic.configs().get("cleanup.policy"));
    }

    @Test
    void singleBrokerCatalogLowersMinIsrToOne() {
        TopicCatalog dev = new TopicCatalog("dev.").withReplicationFactor((short) 1);
        for (TopicSpec spec : dev.all()) {
            assertEquals(1, spec.replicationFactor(), spec.name());
            assertEquals(1, spec.minInsyncReplicas(), spec.name());
            assertTrue(spec.name().startsWith("dev."), spec.name());
        }
        assertEquals(1, catalog.withReplicationFactor((short) 2).changes().minInsyncReplicas());
    }

    @Test
    void changingChangesPartitionsMovesTheLedgerWithIt() {
        TopicCatalog three = catalog.withPartitions(CatalogTopic.CHANGES, 3);
        assertEquals(3, three.changes().partitions());
        assertEquals(3, three.alertLedger().partitions());
        assertEquals(12, catalog.changes().partitions(), "the original catalog is unchanged");
        assertEquals(4, catalog.withPartitions(CatalogTopic.LOG_CHUNKS, 4).logChunks().partitions());
    }

    @Test
    void fixedPartitionCountsCannotBeOverridden() {
        var e = assertThrows(TopicsException.class, () -> catalog.withPartitions(CatalogTopic.ALERT_LEDGER, 3));
        assertTrue(e.getMessage().contains("changes"), e.getMessage());
        assertThrows(TopicsException.class, () -> catalog.withPartitions(CatalogTopic.CDC_SCHEMA_HISTORY, 2));
        assertThrows(TopicsException.class, () -> catalog.withPartitions(CatalogTopic.CHANGES, 0));
    }

    @Test
    void invalidNamesAndSpecsAreRejectedWithTheSettingNamed() {
        var e = assertThrows(TopicsException.class, () -> new TopicCatalog("bad namespace"));
        assertTrue(e.getMessage().contains("namespace"), e.getMessage());
        var spec = catalog.changes();
        e = assertThrows(TopicsException.class, () -> spec.withPartitions(0));
        assertTrue(e.getMessage().contains("partitions"), e.getMessage());
        e = assertThrows(TopicsException.class, () -> new TopicSpec("t", 1, (short) 1, CleanupPolicy.DELETE,
                Duration.ZERO, 1, null, String.class, String.class));
        assertTrue(e.getMessage().contains("retention"), e.getMessage());
        e = assertThrows(TopicsException.class, () -> new TopicSpec("t", 1, (short) 1, CleanupPolicy.DELETE,
                null, 2, null, String.class, String.class));
        assertTrue(e.getMessage().contains("minInsyncReplicas"), e.getMessage());
    }

    @Test
    void byNameFindsCatalogTopicsOnly() {
        assertEquals(catalog.logChunks(), catalog.byName("cs.log-chunks").orElseThrow());
        assertTrue(catalog.byName("other.log-chunks").isEmpty());
    }

    @Test
    void extraConfigsWinOverDerivedOnes() {
        TopicSpec spec = catalog.logChunks().withConfig("retention.ms", "3600000").withConfig("max.message.bytes",
                "2097152");
        assertEquals("3600000", spec.configs().get("retention.ms"));
        assertEquals("2097152", spec.configs().get("max.message.bytes"));
    }
}
