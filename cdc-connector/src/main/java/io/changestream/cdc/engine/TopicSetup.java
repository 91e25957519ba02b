package io.changestream.cdc.engine;

import io.changestream.cdc.CdcException;
import io.changestream.topics.TopicSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** Creates the connector's missing topics from their {@link TopicSpec}s (existing topics are left as they are). */
final class TopicSetup {

    private TopicSetup() {
    }

    static void ensure(String bootstrapServers, List<TopicSpec> specs, long timeoutMs) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeoutMs))) {
            Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
            List<NewTopic> missing = specs.stream().filter(s -> !existing.contains(s.name()))
                    .map(TopicSpec::newTopic).toList();
            if (missing.isEmpty()) {
                return;
            }
            admin.createTopics(missing).values().forEach((name, future) -> {
                try {
                    future.get(timeoutMs, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                        throw new CdcException("could not create topic " + name + ": " + e.getCause(), e);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CdcException("interrupted while creating topic " + name, e);
                } catch (TimeoutException e) {
                    throw new CdcException("could not create topic " + name + " in " + timeoutMs + " ms", e);
                }
            });
        } catch (ExecutionException | TimeoutException e) {
            throw new CdcException("cannot list topics on " + bootstrapServers + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CdcException("interrupted while creating topics", e);
        }
    }
}
