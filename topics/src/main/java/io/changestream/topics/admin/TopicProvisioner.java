package io.changestream.topics.admin;

import io.changestream.topics.TopicSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a Kafka cluster match a set of {@link TopicSpec}s: creates missing topics (with their configs), raises
 * partition counts that are below the spec, and sets every config the spec names whose value differs
 * ({@code incrementalAlterConfigs}, SET only: configs the spec does not name are left alone). Running it again
 * changes nothing. It never deletes topics, never lowers partition counts and never changes replication factors;
 * those differences come back as warnings in the {@link ProvisioningReport}.
 *
 * <p>Raising the partitions of a keyed topic moves keys to other partitions for new records; the report says so.
 * Several instances may provision concurrently: a topic another instance created first is aligned, not an error.
 *
 * <p>When {@code provision} returns, created topics and raised partitions are visible in the broker metadata (it
 * waits up to {@link ProvisionerSettings#metadataWait()}). Uses the caller's {@link Admin} (the caller closes it).
 * Call from one thread at a time, typically at startup; every Admin request is bounded by
 * {@link ProvisionerSettings#requestTimeout()}.
 */
public final class TopicProvisioner {

    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private final Admin admin;
    private final ProvisionerSettings settings;

    public TopicProvisioner(Admin admin, ProvisionerSettings settings) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** A provisioner with default settings. */
    public TopicProvisioner(Admin admin) {
        this(admin, ProvisionerSettings.defaults());
    }

    /**
     * Aligns the cluster with {@code specs}.
     *
     * @throws ProvisioningException when the broker refuses a request or a request times out
     */
    public ProvisioningReport provision(Collection<TopicSpec> specs) {
        Map<String, TopicSpec> byName = new LinkedHashMap<>();
        for (TopicSpec spec : specs) {
            if (byName.put(spec.name(), spec) != null) {
                throw new IllegalArgumentException("topic " + spec.name() + " is specified twice");
            }
        }
        List<String> created = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<String, ProvisioningReport.Change<Integer>> partitionsRaised = new TreeMap<>();
        Map<String, Map<String, ProvisioningReport.Change<String>>> configsChanged = new TreeMap<>();

        Set<String> existing = await(admin.listTopics().names(), "list topics");
        List<TopicSpec> missing = byName.values().stream().filter(s -> !existing.contains(s.name())).toList();
        Set<String> toAlign = new HashSet<>(byName.keySet());
        toAlign.removeAll(create(missing, created));

        if (!toAlign.isEmpty()) {
            Map<String, TopicDescription> descriptions = describeWhenVisible(toAlign, Map.of());
            raisePartitions(byName, descriptions, partitionsRaised, warnings);
            alignConfigs(byName, toAlign, configsChanged);
        }
        Map<String, Integer> expected = new HashMap<>();
        created.forEach(name -> expected.put(name, byName.get(name).partitions()));
        partitionsRaised.forEach((name, change) -> expected.put(name, change.after()));
        if (!expected.isEmpty()) {
            describeWhenVisible(expected.keySet(), expected);
        }
        List<String> unchanged = byName.keySet().stream()
                .filter(n -> !created.contains(n) && !partitionsRaised.containsKey(n) && !configsChanged.containsKey(n))
                .toList();
        ProvisioningReport report = new ProvisioningReport(created, partitionsRaised, configsChanged, unchanged,
                warnings);
        // one line per run (issue 23: fifteen lines at every first start); each topic's detail at DEBUG
        if (!report.warnings().isEmpty()) {
            LOG.warn("topics provisioned: {}", report.summary());
        } else if (!report.noChanges()) {
            LOG.info("topics provisioned: {}", report.summary());
        } else {
            LOG.debug("topics provisioned: {}", report.summary());
        }
        return report;
    }

    /** Creates the topics; returns those it created (a topic created concurrently by someone else is not). */
    private Set<String> create(List<TopicSpec> missing, List<String> created) {
        if (missing.isEmpty()) {
            return Set.of();
        }
        var result = admin.createTopics(missing.stream().map(TopicSpec::newTopic).toList());
        Set<String> done = new HashSet<>();
        for (TopicSpec spec : missing) {
            try {
                await(result.values().get(spec.name()), "create topic " + spec.name());
                created.add(spec.name());
                done.add(spec.name());
                LOG.debug("created topic {} ({} partitions, rf {}, {})", spec.name(), spec.partitions(),
                        spec.replicationFactor(), spec.configs());
            } catch (ProvisioningException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                LOG.info("topic {} was created concurrently; aligning it", spec.name());
            }
        }
        return done;
    }

    /**
     * Describes {@code topics}, waiting up to {@link ProvisionerSettings#metadataWait()} until every one is known to
     * the broker answering and has at least {@code minPartitions} partitions: metadata reaches brokers a moment after
     * the controller accepted a change, and callers expect usable topics when {@code provision} returns.
     */
    private Map<String, TopicDescription> describeWhenVisible(Set<String> topics, Map<String, Integer> minPartitions) {
        Map<String, TopicDescription> described = new HashMap<>();
        waitUntil(() -> {
            try {
                Map<String, TopicDescription> descriptions = await(admin.describeTopics(topics).allTopicNames(),
                        "describe topics " + topics);
                described.putAll(descriptions);
                return descriptions.values().stream()
                        .filter(d -> d.partitions().size() < minPartitions.getOrDefault(d.name(), 1))
                        .map(d -> d.name() + " (" + d.partitions().size() + " partitions)")
                        .collect(Collectors.joining(", "));
            } catch (ProvisioningException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
                return e.getMessage();
            }
        });
        return described;
    }

    /** Describes the configs of {@code topics}. */
    private Map<ConfigResource, Config> describeConfigs(Collection<String> topics) {
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        return await(admin.describeConfigs(resources).all(), "describe configs of " + topics);
    }

    /** The configs of {@code spec} whose current value differs, as {@code key -> (current, wanted)}. */
    private static Map<String, ProvisioningReport.Change<String>> differences(TopicSpec spec, Config current) {
        Map<String, ProvisioningReport.Change<String>> changes = new TreeMap<>();
        for (var wanted : spec.configs().entrySet()) {
            ConfigEntry have = current.get(wanted.getKey());
            String before = have == null ? null : have.value();
            if (!sameValue(wanted.getKey(), before, wanted.getValue())) {
                changes.put(wanted.getKey(), new ProvisioningReport.Change<>(before, wanted.getValue()));
            }
        }
        return changes;
    }

    /**
     * Polls {@code check} (which returns what is still missing, or an empty string when done) every
     * {@link ProvisionerSettings#metadataPollInterval()} for at most {@link ProvisionerSettings#metadataWait()}.
     */
    private void waitUntil(java.util.function.Supplier<String> check) {
        long deadline = System.nanoTime() + settings.metadataWait().toNanos();
        while (true) {
            String missing = check.get();
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new ProvisioningException("changes not visible in the brokers' metadata within metadataWait "
                        + settings.metadataWait().toMillis() + " ms: " + missing, null);
            }
            pause();
        }
    }

    private void pause() {
        try {
            Thread.sleep(settings.metadataPollInterval().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProvisioningException("interrupted while waiting for topic metadata", e);
        }
    }

    private void raisePartitions(Map<String, TopicSpec> specs, Map<String, TopicDescription> descriptions,
                                 Map<String, ProvisioningReport.Change<Integer>> raised, List<String> warnings) {
        Map<String, NewPartitions> increases = new HashMap<>();
        for (TopicDescription description : descriptions.values()) {
            TopicSpec spec = specs.get(description.name());
            int current = description.partitions().size();
            if (current < spec.partitions()) {
                increases.put(spec.name(), NewPartitions.increaseTo(spec.partitions()));
                raised.put(spec.name(), new ProvisioningReport.Change<>(current, spec.partitions()));
            } else if (current > spec.partitions()) {
                warnings.add(spec.name() + " has " + current + " partitions, more than the " + spec.partitions()
                        + " specified; partitions are never removed");
            }
            int replicas = description.partitions().get(0).replicas().size();
            if (replicas != spec.replicationFactor()) {
                warnings.add(spec.name() + " has replication factor " + replicas + ", not the "
                        + spec.replicationFactor() + " specified; reassign partitions to change it");
            }
        }
        if (!increases.isEmpty()) {
            await(admin.createPartitions(increases).all(), "raise partitions " + increases.keySet());
            raised.forEach((topic, change) -> {
                LOG.debug("raised partitions of {}: {}", topic, change);
                warnings.add(topic + ": partitions raised " + change + "; new records of a key may land on another "
                        + "partition than its older records");
            });
        }
    }

    private void alignConfigs(Map<String, TopicSpec> specs, Set<String> topics,
                              Map<String, Map<String, ProvisioningReport.Change<String>>> changed) {
        Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
        for (var entry : describeConfigs(topics).entrySet()) {
            String topic = entry.getKey().name();
            var changes = differences(specs.get(topic), entry.getValue());
            if (!changes.isEmpty()) {
                ops.put(entry.getKey(), changes.entrySet().stream()
                        .map(c -> new AlterConfigOp(new ConfigEntry(c.getKey(), c.getValue().after()),
                                AlterConfigOp.OpType.SET))
                        .toList());
                changed.put(topic, changes);
            }
        }
        if (ops.isEmpty()) {
            return;
        }
        await(admin.incrementalAlterConfigs(ops).all(), "alter configs of " + changed.keySet());
        changed.forEach((topic, changes) -> LOG.debug("aligned configs of {}: {}", topic, changes));
        waitUntil(() -> describeConfigs(changed.keySet()).entrySet().stream()
                .filter(e -> !differences(specs.get(e.getKey().name()), e.getValue()).isEmpty())
                .map(e -> e.getKey().name() + " configs")
                .collect(Collectors.joining(", ")));
    }

    /** Equal values; {@code cleanup.policy} is a set, so {@code delete,compact} equals {@code compact,delete}. */
    static boolean sameValue(String key, String current, String wanted) {
        if (current == null) {
            return false;
        }
        if (TopicConfig.CLEANUP_POLICY_CONFIG.equals(key)) {
            return policySet(current).equals(policySet(wanted));
        }
        return current.trim().equals(wanted.trim());
    }

    private static Set<String> policySet(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    }

    private <T> T await(KafkaFuture<T> future, String what) {
        long timeoutMs = settings.requestTimeout().toMillis();
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ProvisioningException(what + " failed: " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new ProvisioningException(what + " did not finish within requestTimeout " + timeoutMs + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProvisioningException(what + " was interrupted", e);
        }
    }
}
