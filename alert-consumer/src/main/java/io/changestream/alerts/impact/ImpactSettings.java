package io.changestream.alerts.impact;

import io.changestream.topics.model.PipelineState;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How the failure impact of a run is resolved (settings {@code impact.*}). Immutable.
 *
 * @param states           run states whose downstream impact is resolved ({@code impact.states}, default failed,
 *                         stopped: OpenLineage FAIL and ABORT); empty turns the platform's lineage off (so does
 *                         a platform without {@code destinations.platform.bearerToken})
 * @param timeout          longest a delivery waits for the impact ({@code impact.timeout}, 2 s); past it the alert
 *                         goes out without impact and says so, and the lookup goes on to fill the cache
 * @param downstreamDepth  lineage depth asked for below each output ({@code impact.downstreamDepth}, 3; 1..10)
 * @param maxOutputs       most output assets of one pipeline looked at ({@code impact.maxOutputs}, 20)
 * @param maxNodes         most downstream assets kept ({@code impact.maxNodes}, 200); more are counted as truncated
 * @param cacheTtl         how long a resolved impact is reused for the same pipeline ({@code impact.cacheTtl}, 1 min)
 * @param cacheMaxEntries  most pipelines and assets cached ({@code impact.cacheMaxEntries}, 10,000)
 * @param topAssets        impacted assets listed by name in a message ({@code impact.topAssets}, 10); the rest counted
 * @param tiers            only assets of these tiers are impact ({@code impact.tiers}, e.g. {@code Tier.Tier1}; empty
 *                         = every asset); a destination's {@code config.impactTiers} overrides it
 * @param tagLookupTimeout longest the filter {@code matchAnyTag} waits for a run's pipeline tags
 *                         ({@code impact.tagLookupTimeout}, 500 ms); unknown tags then count as a match
 */
public record ImpactSettings(Set<PipelineState> states, Duration timeout, int downstreamDepth, int maxOutputs,
                             int maxNodes, Duration cacheTtl, int cacheMaxEntries, int topAssets, Set<String> tiers,
                             Duration tagLookupTimeout) {

    /** The defaults. */
    public static final ImpactSettings DEFAULTS = new ImpactSettings(EnumSet.of(PipelineState.FAILED,
            PipelineState.STOPPED), Duration.ofSeconds(2), 3, 20, 200, Duration.ofMinutes(1), 10_000, 10, Set.of(),
            Duration.ofMillis(500));

    public ImpactSettings {
        states = Set.copyOf(Objects.requireNonNull(states, "impact.states is required"));
        positive(timeout, "impact.timeout");
        if (timeout.compareTo(Duration.ofSeconds(30)) > 0) {
            throw new IllegalArgumentException("impact.timeout must be at most 30 s, was " + timeout);
        }
        if (downstreamDepth < 1 || downstreamDepth > 10) {
            throw new IllegalArgumentException("impact.downstreamDepth must be 1..10, was " + downstreamDepth);
        }
        atLeastOne(maxOutputs, "impact.maxOutputs");
        atLeastOne(maxNodes, "impact.maxNodes");
        Objects.requireNonNull(cacheTtl, "impact.cacheTtl is required");
        if (cacheTtl.isNegative()) {
            throw new IllegalArgumentException("impact.cacheTtl must be >= 0, was " + cacheTtl);
        }
        atLeastOne(cacheMaxEntries, "impact.cacheMaxEntries");
        atLeastOne(topAssets, "impact.topAssets");
        tiers = Set.copyOf(Objects.requireNonNull(tiers, "impact.tiers is required"));
        positive(tagLookupTimeout, "impact.tagLookupTimeout");
    }

    /** Reads a comma-separated tier list ({@code Tier.Tier1,Tier.Tier2}); blank = every tier. */
    public static Set<String> parseTiers(String list) {
        Set<String> out = new java.util.LinkedHashSet<>();
        for (String tier : list.split(",")) {
            if (!tier.isBlank()) {
                out.add(tier.strip());
            }
        }
        return out;
    }

    /** These settings with other states, timeout and tiers (tests, benchmarks). */
    public ImpactSettings with(Duration otherTimeout, Set<String> otherTiers) {
        return new ImpactSettings(states, otherTimeout, downstreamDepth, maxOutputs, maxNodes, cacheTtl,
                cacheMaxEntries, topAssets, otherTiers, tagLookupTimeout);
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name + " is required");
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + d);
        }
    }

    private static void atLeastOne(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
    }
}
