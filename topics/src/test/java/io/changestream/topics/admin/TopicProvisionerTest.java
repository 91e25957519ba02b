package io.changestream.topics.admin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TopicProvisionerTest {

    @Test
    void cleanupPolicyIsComparedAsASet() {
        assertTrue(TopicProvisioner.sameValue("cleanup.policy", "delete,compact", "compact,delete"));
        assertTrue(TopicProvisioner.sameValue("cleanup.policy", "compact, delete", "compact,delete"));
        assertFalse(TopicProvisioner.sameValue("cleanup.policy", "compact", "compact,delete"));
        assertFalse(TopicProvisioner.sameValue("retention.ms", null, "1"));
        assertTrue(TopicProvisioner.sameValue("retention.ms", "86400000", "86400000"));
    }

    @Test
    void settingsAreValidated() {
        var e = assertThrows(IllegalArgumentException.class, () -> new ProvisionerSettings(Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofMillis(1)));
        assertTrue(e.getMessage().contains("requestTimeout"));
        e = assertThrows(IllegalArgumentException.class, () -> new ProvisionerSettings(Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("metadataPollInterval"));
    }
}
