package io.changestream.testkit;

import java.util.List;

/**
 * A small data estate in the {@link PlatformStandIn}: the metadata ingestion {@value #PIPELINE} of the MySQL service
 * {@code mysql_prod} writes two tables, and the lineage below them reaches four assets at depths 1 to 4. The alert
 * service's impact tests and the shipped jar's use the same one.
 * <pre>
 *   mysql_prod.shop.public.orders (ana, Tier1) ─┐
 *                                               ├─► warehouse.dw.sales.daily_orders (team data-eng, Tier1)
 *   mysql_prod.shop.public.customers (bob, Tier2) ─┘        └─► superset.revenue (dashboard, bob, Tier1)
 *                                                                    └─► ml.churn (mlmodel, ana) └─► kafka.scores (topic)
 * </pre>
 */
public final class ImpactEstate {

    /** The metadata ingestion pipeline (tagged {@code Tier.Tier1}). */
    public static final String PIPELINE = "mysql_prod.ingest_orders";
    /** The e-mail addresses of the owners of what {@value #PIPELINE} hurts. */
    public static final List<String> OWNER_EMAILS = List.of("ana@cs.test", "bob@cs.test", "data-eng@cs.test");
    /** The receiver {@link #criticalFailures} lists beside the owners (it alone gets an unknown impact). */
    public static final String ONCALL = "oncall@cs.test";

    private ImpactEstate() {
    }

    /** Fills the stand-in. */
    public static void fill(PlatformStandIn platform) {
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

    /**
     * The subscription {@code critical-failures} (the platform's CreateEventSubscription JSON): failed runs of Tier1
     * pipelines only ({@code filterByTag}), as OpenLineage to {@code collector} and by e-mail to the owners of what
     * they hurt ({@code DownstreamOwners}) and {@link #ONCALL}, then to the {@code more} destinations (JSON objects).
     */
    public static String criticalFailures(String collector, String... more) {
        StringBuilder destinations = new StringBuilder("""
                {"category": "External", "type": "OpenLineage", "config": {"endpoint": "%s"}},
                {"category": "DownstreamOwners", "type": "Email", "config": {"receivers": ["%s"]}}"""
                .formatted(collector, ONCALL));
        for (String d : more) {
            destinations.append(",\n").append(d);
        }
        return """
                {"name": "critical-failures", "alertType": "Observability", "resources": ["ingestionPipeline"],
                 "input": {"filters": [{"name": "filterByTag", "effect": "include",
                     "arguments": [{"name": "tagList", "input": ["Tier.Tier1"]}]}],
                   "actions": [{"name": "GetIngestionPipelineStatusUpdates", "effect": "include",
                     "arguments": [{"name": "ingestionPipelineStateList", "input": ["failed"]}]}]},
                 "destinations": [%s],
                 "retries": 3}
                """.formatted(destinations);
    }
}
