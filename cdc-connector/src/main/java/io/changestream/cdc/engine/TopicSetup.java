package io.changestream.cdc.engine;

import io.changestream.cdc.CdcException;
import io.changestream.topics.TopicSpec;
import io.changestream.topics.admin.TopicProvisioner;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** Creates the connector's missing topics (and aligns their configs) with the topics module's provisioner. */
final class TopicSetup {

    private TopicSetup() {
    }

    static void ensure(String bootstrapServers, List<TopicSpec> specs, long timeoutMs) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeoutMs))) {
            new TopicProvisioner(admin).provision(specs);
        } catch (RuntimeException e) {
            throw new CdcException("could not provision topics on " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }
}
