package io.changestream.alerts.impact;

import io.changestream.alerts.platform.PlatformNames;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import io.changestream.topics.model.PipelineState;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * How the failure impact of a run is resolved (settings {@code impact.*}). Immutable.
 *
 * @param states           {@link #STATES} (OpenLineage FAIL and ABORT by default); empty turns the platform's lineage
 *                         off (so does a platform without {@code destinations.platform.bearerToken})
 * @param timeout          {@link #TIMEOUT}: past it the alert goes out without impact and says so, and the lookup
 *                         goes on to fill the cache
 * @param downstreamDepth  {@link #DOWNSTREAM_DEPTH}: lineage depth asked for below each output
 * @param maxOutputs       {@link #MAX_OUTPUTS}
 * @param maxNodes         {@link #MAX_NODES}; more are counted as truncated
 * @param cacheTtl         {@link #CACHE_TTL}: how long a resolved impact is reused for the same pipeline
 * @param cacheMaxEntries  {@link #CACHE_MAX_ENTRIES}: most pipelines and assets cached
 * @param topAssets        {@link #TOP_ASSETS}: impacted assets listed by name in a message; the rest counted
 * @param tiers            {@link #TIERS}: only assets of these tiers are impact (empty = every asset); a
 *                         destination's {@code config.impactTiers} overrides it
 * @param tagLookupTimeout {@link #TAG_LOOKUP_TIMEOUT}: how long the filter {@code matchAnyTag} waits for a run's
 *                         pipeline tags; unknown tags then count as a match
 */
public record ImpactSettings(Set<PipelineState> states, Duration timeout, int downstreamDepth, int maxOutputs,
                             int maxNodes, Duration cacheTtl, int cacheMaxEntries, int topAssets, Set<String> tiers,
                             Duration tagLookupTimeout) {

    public static final Setting<Set<PipelineState>> STATES = PlatformNames.RUN_STATES.setting("impact.states",
            EnumSet.of(PipelineState.FAILED, PipelineState.STOPPED)).doc("run states whose downstream impact is "
            + "resolved from the platform's lineage (the platform's names)");
    public static final Setting<Duration> TIMEOUT = Setting.duration("impact.timeout").defaultsTo(Duration.ofSeconds(2))
            .positive().check(d -> d.compareTo(Duration.ofSeconds(30)) <= 0, "must be at most 30 s")
            .doc("longest a delivery waits for the impact; then it goes out without it and says so");
    public static final Setting<Integer> DOWNSTREAM_DEPTH = Setting.integer("impact.downstreamDepth").defaultsTo(3)
            .between(1, 10).doc("lineage depth below each output of a run (1..10)");
    public static final Setting<Integer> MAX_OUTPUTS = Setting.integer("impact.maxOutputs").defaultsTo(20).atLeast(1)
            .doc("most output assets of one pipeline looked at");
    public static final Setting<Integer> MAX_NODES = Setting.integer("impact.maxNodes").defaultsTo(200).atLeast(1)
            .doc("most downstream assets kept; more are counted as truncated");
    public static final Setting<Duration> CACHE_TTL = Setting.duration("impact.cacheTtl")
            .defaultsTo(Duration.ofMinutes(1)).notNegative().doc("how long a pipeline's resolved impact is reused");
    public static final Setting<Integer> CACHE_MAX_ENTRIES = Setting.integer("impact.cacheMaxEntries")
            .defaultsTo(10_000).atLeast(1).doc("most pipelines cached");
    public static final Setting<Integer> TOP_ASSETS = Setting.integer("impact.topAssets").defaultsTo(10).atLeast(1)
            .doc("impacted assets listed by name in a message; the rest counted");
    public static final Setting<Set<String>> TIERS = Setting.of("impact.tiers", ImpactSettings::parseTiers,
            tiers -> String.join(",", tiers)).defaultsTo(Set.of()).doc("tiers the impact is limited to (e.g. "
            + "Tier.Tier1,Tier.Tier2); empty = every asset");
    public static final Setting<Duration> TAG_LOOKUP_TIMEOUT = Setting.duration("impact.tagLookupTimeout")
            .defaultsTo(Duration.ofMillis(500)).positive().doc("longest matchAnyTag waits for a run's pipeline tags");
    /** The failure impact's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(STATES, TIMEOUT, DOWNSTREAM_DEPTH, MAX_OUTPUTS, MAX_NODES,
            CACHE_TTL, CACHE_MAX_ENTRIES, TOP_ASSETS, TIERS, TAG_LOOKUP_TIMEOUT);

    /** The defaults. */
    public static final ImpactSettings DEFAULTS = from(SettingsReader.of(java.util.Map.of()));

    public ImpactSettings {
        states = Set.copyOf(STATES.check(states));
        TIMEOUT.check(timeout);
        DOWNSTREAM_DEPTH.check(downstreamDepth);
        MAX_OUTPUTS.check(maxOutputs);
        MAX_NODES.check(maxNodes);
        CACHE_TTL.check(cacheTtl);
        CACHE_MAX_ENTRIES.check(cacheMaxEntries);
        TOP_ASSETS.check(topAssets);
        tiers = Set.copyOf(TIERS.check(tiers));
        TAG_LOOKUP_TIMEOUT.check(tagLookupTimeout);
    }

    /** The failure impact's settings {@code settings} give. */
    public static ImpactSettings from(SettingsReader settings) {
        return new ImpactSettings(settings.get(STATES), settings.get(TIMEOUT), settings.get(DOWNSTREAM_DEPTH),
                settings.get(MAX_OUTPUTS), settings.get(MAX_NODES), settings.get(CACHE_TTL),
                settings.get(CACHE_MAX_ENTRIES), settings.get(TOP_ASSETS), settings.get(TIERS),
                settings.get(TAG_LOOKUP_TIMEOUT));
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
}
