package io.changestream.ops.topics;

import io.changestream.ops.kafka.AdminCalls;
import io.changestream.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Compares the topics of a catalog with what a cluster has (read-only): {@code topics describe}.
 * Uses the caller's {@link Admin}; called from one thread.
 */
public final class CatalogInspector {

    private final Admin admin;
    private final Duration timeout;

    /**
     * @param admin   the admin client (not closed here)
     * @param timeout bound on each admin request
     */
    public CatalogInspector(Admin admin, Duration timeout) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * One catalog topic as found on the cluster.
     *
     * @param spec        what the catalog specifies
     * @param exists      whether the topic exists
     * @param partitions  its partition count (0 when missing)
     * @param replication its replication factor (0 when missing)
     * @param differences spec configs whose value on the cluster differs, as {@code key=actual (want wanted)}
     */
    public record TopicState(TopicSpec spec, boolean exists, int partitions, int replication,
                             List<String> differences) {

        public TopicState {
            differences = List.copyOf(differences);
        }

        /** True when the topic exists with the spec's partitions and configs. */
        public boolean matches() {
            return exists && partitions == spec.partitions() && differences.isEmpty();
        }
    }

    /** The state of every spec, in the given order. */
    public List<TopicState> inspect(List<TopicSpec> specs) {
        Set<String> existing = await(admin.listTopics().names(), "list topics");
        List<String> present = specs.stream().map(TopicSpec::name).filter(existing::contains).toList();
        Map<String, TopicDescription> descriptions = present.isEmpty() ? Map.of()
                : await(admin.describeTopics(present).allTopicNames(), "describe topics");
        Map<ConfigResource, Config> configs = present.isEmpty() ? Map.of()
                : await(admin.describeConfigs(present.stream()
                        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList()).all(), "describe configs");
        List<TopicState> out = new ArrayList<>();
        for (TopicSpec spec : specs) {
            TopicDescription d = descriptions.get(spec.name());
            if (d == null) {
                out.add(new TopicState(spec, false, 0, 0, List.of()));
                continue;
            }
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()));
            List<String> differences = spec.configs().entrySet().stream()
                    .filter(e -> {
                        ConfigEntry have = config.get(e.getKey());
                        return have == null || !e.getValue().equals(have.value());
                    })
                    .map(e -> {
                        ConfigEntry have = config.get(e.getKey());
                        return e.getKey() + "=" + (have == null ? "unset" : have.value()) + " (want " + e.getValue()
                                + ")";
                    })
                    .sorted().collect(Collectors.toList());
            out.add(new TopicState(spec, true, d.partitions().size(), d.partitions().get(0).replicas().size(),
                    differences));
        }
        return out;
    }

    private <T> T await(KafkaFuture<T> future, String what) {
        return AdminCalls.await(future, timeout, what);
    }
}
