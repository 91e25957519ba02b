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

    @Override
    public String toString() {
        return "ProvisioningReport[created=" + created + ", partitionsRaised=" + partitionsRaised
                + ", configsChanged=" + configsChanged + ", unchanged=" + unchanged + ", warnings=" + warnings + "]";
    }
}
