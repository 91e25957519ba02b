package io.changestream.cdc.engine;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcException;
import io.changestream.topics.TopicSpec;
import io.changestream.topics.admin.TopicProvisioner;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Creates the connector's missing topics (and aligns their configs) with the topics module's provisioner, through an
 * admin client configured with the pass-through client properties.
 */
final class TopicSetup {

    private TopicSetup() {
    }

    static void ensure(CdcConfig.Kafka kafka, List<TopicSpec> specs, long timeoutMs) {
        Map<String, Object> props = kafka.clientProperties();
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeoutMs);
        try (Admin admin = Admin.create(props)) {
            new TopicProvisioner(admin).provision(specs);
        } catch (RuntimeException e) {
            throw new CdcException("could not provision topics on " + kafka.bootstrapServers() + ": " + e.getMessage(),
                    e);
        }
    }
}
