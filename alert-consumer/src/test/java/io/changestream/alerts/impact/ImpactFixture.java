package io.changestream.alerts.impact;

import io.changestream.alerts.destination.PlatformSettings;
import io.changestream.alerts.destination.PlatformStandIn;
import java.util.List;

/**
 * A small data estate in the platform stand-in: the metadata ingestion {@value #PIPELINE} of the MySQL service
 * {@code mysql_prod} writes two tables, and the lineage below them reaches four assets at depths 1 to 4.
 * <pre>
 *   mysql_prod.shop.public.orders (ana, Tier1) ─┐
 *                                               ├─► warehouse.dw.sales.daily_orders (team data-eng, Tier1)
 *   mysql_prod.shop.public.customers (bob, Tier2) ─┘        └─► superset.revenue (dashboard, bob, Tier1)
 *                                                                    └─► ml.churn (mlmodel, ana) └─► kafka.scores (topic)
 * </pre>
 */
public final class ImpactFixture {

    /** The metadata ingestion pipeline. */
    public static final String PIPELINE = "mysql_prod.ingest_orders";

    private ImpactFixture() {
    }

    /** Fills the stand-in. */
    public static void estate(PlatformStandIn platform) {
        platform.user("ana", "ana@cs.test", false);
        platform.user("bob", "bob@cs.test", false);
        platform.team("data-eng", "data-eng@cs.test");
        platform.ingestionPipeline(PIPELINE, "metadata", "databaseService", "mysql_prod", "Tier.Tier1");
        platform.ingestionPipeline("mysql_prod.insights", "dataInsight", "databaseService", "mysql_prod");
        platform.testSuitePipeline("mysql_prod.orders_checks", "mysql_prod.shop.public.orders");
        platform.database("mysql_prod", "mysql_prod.shop");
        String orders = platform.asset("table", "mysql_prod.shop.public.orders", List.of("ana"), "Tier.Tier1");
        String customers = platform.asset("table", "mysql_prod.shop.public.customers", List.of("bob"), "Tier.Tier2",
                "PII.Sensitive");
        String daily = platform.asset("table", "warehouse.dw.sales.daily_orders", List.of("team:data-eng"),
                "Tier.Tier1");
        String revenue = platform.asset("dashboard", "superset.revenue", List.of("bob"), "Tier.Tier1");
        String churn = platform.asset("mlmodel", "ml.churn", List.of("ana"));
        String scores = platform.asset("topic", "kafka.scores", List.of());
        platform.edge(orders, daily);
        platform.edge(customers, daily);
        platform.edge(daily, revenue);
        platform.edge(revenue, churn);
        platform.edge(churn, scores);
    }

    /** The stand-in's API with its token. */
    public static PlatformSettings platform(PlatformStandIn platform) {
        return new PlatformSettings(platform.url(), PlatformStandIn.TOKEN, java.time.Duration.ofSeconds(5),
                java.time.Duration.ofMinutes(5), 1000, 10);
    }
}
