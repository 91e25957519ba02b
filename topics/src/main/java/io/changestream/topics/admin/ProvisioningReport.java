package io.changestream.topics.admin;

import java.util.List;
import java.util.Map;

/**
 * What one {@link TopicProvisioner#provision} run changed. Immutable.
 *
 * @param created           topics that were created
 * @param partitionsRaised  topic → its partition count before and after
 * @param configsChanged    topic → config key → value before (null when unset) and after
 * @param unchanged         topics that already matched their spec
 * @param warnings          differences the provisioner does not fix (more partitions than the spec, another
 *                          replication factor): an operator decides
 */
public record ProvisioningReport(
        List<String> created,
        Map<String, Change<Integer>> partitionsRaised,
        Map<String, Map<String, Change<String>>> configsChanged,
        List<String> unchanged,
        List<String> warnings) {

    /**
     * One value before and after.
     *
     * @param before the old value (null when it was not set)
     * @param after  the new value
     * @param <T>    value type
     */
    public record Change<T>(T before, T after) {
        @Override
        public String toString() {
            return before + " -> " + after;
        }
    }

    public ProvisioningReport {
        created = List.copyOf(created);
        partitionsRaised = Map.copyOf(partitionsRaised);
        configsChanged = Map.copyOf(configsChanged);
        unchanged = List.copyOf(unchanged);
        warnings = List.copyOf(warnings);
    }

    /** True when the run changed nothing. */
    public boolean noChanges() {
        return created.isEmpty() && partitionsRaised.isEmpty() && configsChanged.isEmpty();
    }

    /**
     * One line for the log: how many topics were created, which were raised or aligned, how many were unchanged, and
     * every warning, e.g. {@code 13 created; 0 unchanged}.
     */
    public String summary() {
        StringBuilder s = new StringBuilder().append(created.size()).append(" created");
        if (!partitionsRaised.isEmpty()) {
            s.append("; partitions raised ").append(new java.util.TreeMap<>(partitionsRaised));
        }
        if (!configsChanged.isEmpty()) {
            s.append("; configs aligned ").append(new java.util.TreeMap<>(configsChanged));
        }
        s.append("; ").append(unchanged.size()).append(" unchanged");
        warnings.forEach(w -> s.append("; WARNING ").append(w));
        return s.toString();
    }

    @Override
    public String toString() {
        return "ProvisioningReport[created=" + created + ", partitionsRaised=" + partitionsRaised
                + ", configsChanged=" + configsChanged + ", unchanged=" + unchanged + ", warnings=" + warnings + "]";
    }
}
