package io.changestream.ops.offsets;

import io.changestream.ops.UsageException;
import io.changestream.topics.CatalogTopic;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Where {@code offsets reset --execute} writes an alert group's reset markers: the {@code alert-ledger} of the
 * namespace the group reads. The alert service reads its namespace's source topics ({@code changes},
 * {@code pipeline-status}, {@code alert-retry}) and rebuilds from that namespace's ledger, so a marker anywhere else
 * is never seen (issue 23: a group on {@code hr.changes} got markers in {@code cs.alert-ledger}, and nothing was
 * re-delivered). The namespace is derived from the plan's topics; a {@code --namespace} that disagrees with them, or
 * topics of several namespaces, is refused before anything is reset. Stateless.
 */
public final class LedgerNamespace {

    /** The topics an alert group commits offsets for. */
    private static final List<CatalogTopic> SOURCES = List.of(CatalogTopic.CHANGES, CatalogTopic.PIPELINE_STATUS,
            CatalogTopic.ALERT_RETRY);

    private LedgerNamespace() {
    }

    /** The namespace of a changestream source topic ({@code hr.changes} → {@code hr.}), or empty for another topic. */
    static Optional<String> of(String topic) {
        for (CatalogTopic source : SOURCES) {
            if (topic.endsWith(source.suffix())) {
                return Optional.of(topic.substring(0, topic.length() - source.suffix().length()));
            }
        }
        return Optional.empty();
    }

    /**
     * The namespace whose ledger gets a plan's reset markers.
     *
     * @param plan  the planned reset (not yet executed)
     * @param given {@code --namespace}, or null when absent
     * @return the namespace; empty when none of the plan's topics is a changestream source topic (not an alert
     *         group: no marker) and none was given
     * @throws UsageException naming the topics when they span namespaces, when {@code given} is not theirs, or when
     *                        {@code given} was named for topics that are no changestream source topics
     */
    public static Optional<String> resolve(ResetPlan plan, String given) {
        Map<String, TreeSet<String>> byNamespace = new TreeMap<>();
        TreeSet<String> others = new TreeSet<>();
        for (PartitionPlan row : plan.rows()) {
            String topic = row.partition().topic();
            of(topic).ifPresentOrElse(ns -> byNamespace.computeIfAbsent(ns, k -> new TreeSet<>()).add(topic),
                    () -> others.add(topic));
        }
        if (byNamespace.size() > 1) {
            throw new UsageException("group '" + plan.group() + "' has topics of several namespaces ("
                    + describe(byNamespace) + "): nothing was reset; reset one namespace at a time with --topic");
        }
        if (byNamespace.isEmpty()) {
            if (given != null && !others.isEmpty()) {
                throw new UsageException("--namespace '" + given + "' names an alert-ledger, but group '"
                        + plan.group() + "' reads no changestream source topic of it (" + String.join(", ", others)
                        + "): nothing was reset; drop --namespace");
            }
            return Optional.ofNullable(given);
        }
        String derived = byNamespace.keySet().iterator().next();
        if (given != null && !given.equals(derived)) {
            throw new UsageException("--namespace '" + given + "' disagrees with group '" + plan.group()
                    + "''s topics (" + describe(byNamespace) + "): nothing was reset; the reset markers must go to "
                    + derived + CatalogTopic.ALERT_LEDGER.suffix() + " (give --namespace " + derived
                    + " or drop it)");
        }
        return Optional.of(derived);
    }

    private static String describe(Map<String, TreeSet<String>> byNamespace) {
        return byNamespace.entrySet().stream().map(e -> "namespace '" + e.getKey() + "': "
                + String.join(", ", e.getValue())).collect(Collectors.joining("; "));
    }
}
