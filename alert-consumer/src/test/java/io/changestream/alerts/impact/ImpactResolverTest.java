package io.changestream.alerts.impact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The impact resolver against the local stand-in of the platform's lineage, entity and user APIs. */
class ImpactResolverTest {

    private final PlatformStandIn platform = new PlatformStandIn();
    private final TestClock clock = TestClock.frozenAt(Instant.parse("2026-12-01T00:00:00Z"));

    @BeforeEach
    void estate() {
        ImpactEstate.fill(platform);
    }

    @AfterEach
    void stop() {
        platform.close();
    }

    private ImpactResolver resolver(ImpactSettings settings) {
        return new ImpactResolver(settings, ImpactFixture.platform(platform), clock);
    }

    private static PipelineRunStatus failed(String fqn) {
        return new PipelineRunStatus(fqn, "run-1", PipelineState.FAILED, 1L, 2L, 3L);
    }

    private static List<String> fqns(List<Impact.Asset> assets) {
        return assets.stream().map(a -> a.fqn() + "@" + a.depth()).toList();
    }

    @Test
    void aFailedMetadataRunHurtsTheServicesTablesAndEverythingBelowThemNearestFirst() {
        Impact impact = resolver(ImpactSettings.DEFAULTS).resolve(failed(ImpactEstate.PIPELINE));
        assertEquals(Impact.Status.RESOLVED, impact.status(), String.valueOf(impact.reason()));
        assertEquals("metadata", impact.pipelineType());
        assertEquals(List.of("mysql_prod.shop.public.customers@0", "mysql_prod.shop.public.orders@0"),
                fqns(impact.outputs()));
        // depth 3 by default: kafka.scores (depth 4) is beyond it; daily_orders once, though both tables feed it
        assertEquals(List.of("warehouse.dw.sales.daily_orders@1", "superset.revenue@2", "ml.churn@3"),
                fqns(impact.downstream()));
        assertEquals(5, impact.total());
        assertFalse(impact.truncated());
        Impact.Asset daily = impact.downstream().get(0);
        assertEquals("table", daily.type());
        assertEquals("Tier.Tier1", daily.tier());
        assertEquals(List.of(new Impact.Owner(daily.owners().get(0).id(), "team", "data-eng")), daily.owners());
        assertEquals("dashboard", impact.downstream().get(1).type());
        assertEquals(List.of("bob", "ana", "data-eng"), impact.owners().stream().map(Impact.Owner::name).toList());
    }

    @Test
    void theNodeBoundKeepsTheNearestAndCountsTheRest() {
        ImpactSettings one = new ImpactSettings(ImpactSettings.DEFAULTS.states(), Duration.ofSeconds(2), 5, 20, 1,
                Duration.ofMinutes(1), 100, 10, Set.of(), Duration.ofMillis(500));
        Impact impact = resolver(one).resolve(failed(ImpactEstate.PIPELINE));
        assertEquals(List.of("warehouse.dw.sales.daily_orders@1"), fqns(impact.downstream()));
        assertEquals(2 + 4, impact.total(), "depth 5 reaches kafka.scores too; all are counted");
        assertTrue(impact.truncated());
        List<String> lines = impact.lines(2);
        assertEquals("6 impacted assets (lineage cut at its bounds):", lines.get(0));
        assertEquals("table mysql_prod.shop.public.customers (output, Tier.Tier2, owners: bob)", lines.get(1));
        assertEquals("… and 4 more impacted assets", lines.get(lines.size() - 1));
    }

    @Test
    void theImpactLimitedToATierListsAndCountsOnlyItsAssets() {
        Impact impact = resolver(ImpactSettings.DEFAULTS).resolve(failed(ImpactEstate.PIPELINE))
                .limitedTo(Set.of("Tier.Tier1"));
        assertEquals(List.of("mysql_prod.shop.public.orders@0"), fqns(impact.outputs()));
        assertEquals(List.of("warehouse.dw.sales.daily_orders@1", "superset.revenue@2"), fqns(impact.downstream()));
        assertEquals(3, impact.total());
    }

    @Test
    void concurrentFailuresOfOnePipelineShareOneLookupAndTheCacheHoldsItForItsTtl() throws Exception {
        platform.latency(Duration.ofMillis(100));
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Impact>> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                all.add(pool.submit(() -> resolver.resolve(failed(ImpactEstate.PIPELINE))));
            }
            for (Future<Impact> f : all) {
                assertEquals(Impact.Status.RESOLVED, f.get().status());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2, platform.lineageCalls(), "one lineage request per output, for all eight failures");
        resolver.resolve(failed(ImpactEstate.PIPELINE));
        assertEquals(2, platform.lineageCalls(), "cached");
        clock.advance(Duration.ofMinutes(1).plusSeconds(1));
        resolver.resolve(failed(ImpactEstate.PIPELINE));
        assertEquals(4, platform.lineageCalls(), "fetched again after impact.cacheTtl");
    }

    @Test
    void aPlatformThatIsDownGivesAnUnknownImpactAtOnceAndNothingIsCached() {
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS);
        platform.unavailable(true);
        long start = System.nanoTime();
        Impact impact = resolver.resolve(failed(ImpactEstate.PIPELINE));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 1000);
        assertEquals(Impact.Status.UNAVAILABLE, impact.status());
        assertTrue(impact.reason().contains("503"), impact.reason());
        assertFalse(impact.reason().contains(PlatformStandIn.TOKEN));
        assertEquals(List.of("Downstream impact unknown: " + impact.reason()), impact.lines(10));
        platform.unavailable(false);
        assertEquals(Impact.Status.RESOLVED, resolver.resolve(failed(ImpactEstate.PIPELINE)).status());
    }

    @Test
    void aSlowPlatformGivesAnUnknownImpactWithinTheTimeoutAndTheLookupFillsTheCacheLater() {
        platform.latency(Duration.ofMillis(300));
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS.with(Duration.ofMillis(200), Set.of()));
        long start = System.nanoTime();
        Impact impact = resolver.resolve(failed(ImpactEstate.PIPELINE));
        long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertEquals(Impact.Status.UNAVAILABLE, impact.status());
        assertEquals("the platform's lineage did not answer within 200 ms", impact.reason());
        assertTrue(took >= 190 && took < 600, "waited " + took + " ms");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> platform.lineageCalls() == 2);
        platform.latency(Duration.ZERO);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                resolver.resolve(failed(ImpactEstate.PIPELINE)).status() == Impact.Status.RESOLVED);
        assertEquals(2, platform.lineageCalls(), "the first lookup's answer was kept, not fetched again");
    }

    @Test
    void whatDownstreamMeansDependsOnTheKindOfPipeline() {
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS);
        Impact suite = resolver.resolve(failed("mysql_prod.orders_checks"));
        assertEquals(List.of("mysql_prod.shop.public.orders@0"), fqns(suite.outputs()), "the table under test");
        assertEquals(List.of("warehouse.dw.sales.daily_orders@1", "superset.revenue@2", "ml.churn@3"),
                fqns(suite.downstream()));
        Impact insights = resolver.resolve(failed("mysql_prod.insights"));
        assertEquals(Impact.Status.NOT_APPLICABLE, insights.status());
        assertEquals("a dataInsight pipeline writes no data assets", insights.reason());
        assertEquals(Impact.Status.NOT_APPLICABLE, resolver.resolve(failed("nope.unknown")).status());
        assertEquals(Impact.Status.NOT_APPLICABLE, resolver.resolve(new PipelineRunStatus(ImpactEstate.PIPELINE,
                "r", PipelineState.SUCCESS, 1L, 2L, 3L)).status(), "a successful run hurts nothing");
    }

    @Test
    void aPipelinesTagsAreLookedUpForTheFilterAndUnknownWhenThePlatformIsDown() {
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS);
        assertEquals(Optional.of(List.of("Tier.Tier1")), resolver.tags(ImpactResolver.INGESTION_PIPELINE,
                ImpactEstate.PIPELINE));
        assertEquals(Optional.of(List.of()), resolver.tags(ImpactResolver.INGESTION_PIPELINE, "nope.unknown"));
        platform.unavailable(true);
        assertEquals(Optional.empty(), resolver.tags(ImpactResolver.INGESTION_PIPELINE, "mysql_prod.insights"));
    }
}
