package io.changestream.topics.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one log line a provisioning run writes (issue 23: it was fifteen lines, one per topic and change). */
class ProvisioningReportTest {

    @Test
    void summaryIsOneLineWithCountsChangesAndWarnings() {
        ProvisioningReport fresh = new ProvisioningReport(List.of("cs.changes", "cs.alert-ledger"), Map.of(),
                Map.of(), List.of(), List.of());
        assertEquals("2 created; 0 unchanged", fresh.summary());
        ProvisioningReport raised = new ProvisioningReport(List.of(),
                Map.of("cs.changes", new ProvisioningReport.Change<>(3, 12)),
                Map.of("cs.alert-dlq", Map.of("retention.ms", new ProvisioningReport.Change<>(null, "5"))),
                List.of("cs.subscriptions"), List.of("cs.changes: partitions raised 3 -> 12"));
        assertEquals("0 created; partitions raised {cs.changes=3 -> 12}; configs aligned {cs.alert-dlq="
                + "{retention.ms=null -> 5}}; 1 unchanged; WARNING cs.changes: partitions raised 3 -> 12",
                raised.summary());
        assertEquals(1, raised.summary().lines().count());
    }
}
