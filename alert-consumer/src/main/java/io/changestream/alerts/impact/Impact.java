package io.changestream.alerts.impact;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a pipeline run hurts: the assets it writes ({@code depth} 0) and the assets downstream of them in the
 * platform's lineage (depth 1..n), each with its owners and tags, nearest first. Immutable.
 *
 * @param status       whether the impact is known
 * @param reason       why it is not known, or null when {@link Status#RESOLVED}
 * @param pipelineType the platform's {@code pipelineType} of the ingestion pipeline ({@code metadata}, {@code dbt},
 *                     …), or null when unknown
 * @param outputs      the assets the run writes (depth 0), at most {@code impact.maxOutputs}
 * @param downstream   the assets below them, nearest first, at most {@code impact.maxNodes}
 * @param total        how many impacted assets there are in all (outputs and downstream, also those not kept)
 * @param truncated    whether a bound (outputs, nodes, depth) cut the lineage short
 * @param tookMillis   how long the platform took to answer
 */
public record Impact(Status status, String reason, String pipelineType, List<Asset> outputs, List<Asset> downstream,
                     int total, boolean truncated, long tookMillis) {

    /** Whether an impact is known. */
    public enum Status {
        /** The platform answered: the lists are the lineage as far as the bounds reach. */
        RESOLVED("resolved"),
        /** The platform did not answer in time or answered an error: nothing is known downstream. */
        UNAVAILABLE("unavailable"),
        /** There is nothing to resolve: a run state without impact, an unknown pipeline, a kind without assets. */
        NOT_APPLICABLE("notApplicable");

        private final String wire;

        Status(String wire) {
            this.wire = wire;
        }

        /** The name in the facet and in webhook bodies. */
        public String wire() {
            return wire;
        }
    }

    /**
     * One impacted asset.
     *
     * @param id     the platform's entity id, or null
     * @param type   the platform's entity type ({@code table}, {@code dashboard}, …)
     * @param fqn    its fully qualified name
     * @param depth  0 for an output of the run, n for n lineage edges below one
     * @param owners its owners (users and teams)
     * @param tags   its tag FQNs ({@code Tier.Tier1}, {@code PII.Sensitive}), classification tags and glossary terms
     */
    public record Asset(String id, String type, String fqn, int depth, List<Owner> owners, List<String> tags) {
        public Asset {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(fqn, "fqn");
            owners = List.copyOf(owners);
            tags = List.copyOf(tags);
        }

        /** Its tier tag ({@code Tier.Tier1}), or null. */
        public String tier() {
            return tags.stream().filter(t -> t.startsWith("Tier.")).findFirst().orElse(null);
        }

        Asset at(int otherDepth) {
            return new Asset(id, type, fqn, otherDepth, owners, tags);
        }
    }

    /**
     * An owner of an asset, as the platform's entity reference names it.
     *
     * @param id   user or team id, or null
     * @param type {@code user} or {@code team}
     * @param name its name
     */
    public record Owner(String id, String type, String name) {
    }

    public Impact {
        Objects.requireNonNull(status, "status");
        outputs = List.copyOf(outputs);
        downstream = List.copyOf(downstream);
    }

    /** Nothing known: the platform did not answer (the reason says how). */
    public static Impact unavailable(String reason, long tookMillis) {
        return new Impact(Status.UNAVAILABLE, reason, null, List.of(), List.of(), 0, false, tookMillis);
    }

    /** Nothing to resolve, and why. */
    public static Impact notApplicable(String reason, String pipelineType) {
        return new Impact(Status.NOT_APPLICABLE, reason, pipelineType, List.of(), List.of(), 0, false, 0);
    }

    /** Every impacted asset, outputs first, then downstream nearest first. */
    public List<Asset> assets() {
        List<Asset> all = new ArrayList<>(outputs);
        all.addAll(downstream);
        return all;
    }

    /**
     * This impact limited to assets of the tiers (empty = all): the assets of other tiers (and untiered ones) are
     * left out of the lists and of {@link #total()}.
     */
    public Impact limitedTo(Set<String> tiers) {
        if (tiers.isEmpty() || status != Status.RESOLVED) {
            return this;
        }
        List<Asset> out = outputs.stream().filter(a -> a.tier() != null && tiers.contains(a.tier())).toList();
        List<Asset> down = downstream.stream().filter(a -> a.tier() != null && tiers.contains(a.tier())).toList();
        return new Impact(status, reason, pipelineType, out, down, out.size() + down.size(), truncated, tookMillis);
    }

    /**
     * This impact as JSON fields (the {@code changestream_impact} facet's and a webhook body's {@code impact}):
     * {@code status}, {@code reason}, {@code pipelineType}, {@code downstreamDepth}, {@code tiers}, {@code total},
     * {@code truncated}, {@code resolvedInMs} and {@code assets} ({@code entityType}, {@code fullyQualifiedName},
     * {@code depth}, {@code tier}, {@code tags}, {@code owners} of {@code type} and {@code name}).
     */
    public Map<String, Object> describe(Set<String> tiers, int downstreamDepth) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", status.wire());
        if (reason != null) {
            out.put("reason", reason);
        }
        if (pipelineType != null) {
            out.put("pipelineType", pipelineType);
        }
        out.put("downstreamDepth", downstreamDepth);
        if (!tiers.isEmpty()) {
            out.put("tiers", List.copyOf(tiers));
        }
        out.put("total", total);
        out.put("truncated", truncated);
        out.put("resolvedInMs", tookMillis);
        List<Map<String, Object>> list = new ArrayList<>();
        for (Asset a : assets()) {
            Map<String, Object> asset = new LinkedHashMap<>();
            asset.put("entityType", a.type());
            asset.put("fullyQualifiedName", a.fqn());
            asset.put("depth", a.depth());
            if (a.tier() != null) {
                asset.put("tier", a.tier());
            }
            asset.put("tags", a.tags());
            List<Map<String, Object>> owners = new ArrayList<>();
            for (Owner o : a.owners()) {
                Map<String, Object> owner = new LinkedHashMap<>();
                owner.put("type", "team".equals(o.type()) ? "team" : "user");
                if (o.name() != null) {
                    owner.put("name", o.name());
                }
                owners.add(owner);
            }
            asset.put("owners", owners);
            list.add(asset);
        }
        out.put("assets", list);
        return out;
    }

    /** The distinct owners of the impacted assets, in asset order. */
    public List<Owner> owners() {
        Map<String, Owner> out = new LinkedHashMap<>();
        for (Asset a : assets()) {
            for (Owner o : a.owners()) {
                out.putIfAbsent(o.type() + "/" + (o.id() != null ? o.id() : o.name()), o);
            }
        }
        return List.copyOf(out.values());
    }

    /**
     * The lines a message lists: one per asset for the first {@code top} ({@code table svc.db.s.orders (Tier.Tier1,
     * owners: ana, data-team) — output}), then {@code … and N more impacted assets}; or one line saying why nothing
     * is listed.
     */
    public List<String> lines(int top) {
        List<String> lines = new ArrayList<>();
        if (status == Status.UNAVAILABLE) {
            lines.add("Downstream impact unknown: " + reason);
            return lines;
        }
        if (status == Status.NOT_APPLICABLE) {
            lines.add("No downstream impact: " + reason);
            return lines;
        }
        List<Asset> all = assets();
        if (all.isEmpty()) {
            lines.add("No downstream assets impacted.");
            return lines;
        }
        lines.add(total + " impacted asset" + (total == 1 ? "" : "s") + (truncated ? " (lineage cut at its bounds)"
                : "") + ":");
        for (Asset a : all.subList(0, Math.min(top, all.size()))) {
            StringBuilder line = new StringBuilder(a.type()).append(' ').append(a.fqn()).append(" (");
            line.append(a.depth() == 0 ? "output" : "downstream " + a.depth());
            if (a.tier() != null) {
                line.append(", ").append(a.tier());
            }
            if (!a.owners().isEmpty()) {
                line.append(", owners: ").append(String.join(", ", a.owners().stream().map(Owner::name).toList()));
            }
            lines.add(line.append(')').toString());
        }
        int rest = total - Math.min(top, all.size());
        if (rest > 0) {
            lines.add("… and " + rest + " more impacted asset" + (rest == 1 ? "" : "s"));
        }
        return lines;
    }
}
