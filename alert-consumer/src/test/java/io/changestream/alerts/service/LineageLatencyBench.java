package io.changestream.alerts.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.alerts.destination.lineage.ImpactRunFacet;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code ops/bench lineage-latency} (issue 28): failed pipeline runs committed in PostgreSQL
 * ({@code entity_extension_time_series}, one a second) → cdc-connector → {@code pipeline-status} → alert service
 * (a critical-pipelines subscription: {@code filterByTag} Tier1, failed runs, OpenLineage) → a local collector,
 * with the failure impact read from a local stand-in of the platform's lineage, entity and user APIs answering each
 * request after {@code standInMs}. Latency is from each row's commit to the RunEvent's arrival. Three phases, each
 * run with pipelines of its own (so no lookup is answered from the cache): {@code answering} (the stand-in
 * answers), {@code down} (it answers 503) and {@code slow} (it answers after 5 s, beyond {@code impact.timeout}).
 * Prints a table and, last, {@code RESULT {...}}. Arguments: seconds (60), seconds per down/slow phase (10),
 * stand-in latency ms (20).
 */
public final class LineageLatencyBench {

    private static final int WARM_UP = 5;

    private LineageLatencyBench() {
    }

    /** One phase's outcome. */
    record Phase(String name, int events, int received, int withImpact, double p50, double p99, double max) {
        int lost() {
            return events - received;
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int downSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int standInMs = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        String ns = "bench-lineage.";
        List<Phase> phases = new ArrayList<>();
        try (KafkaBroker broker = Brokers.start(Map.of()); PostgresDatabase pg = PostgresDatabase.start();
             PlatformStandIn platform = new PlatformStandIn(); Collector collector = new Collector()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            ImpactEstate.fill(platform);
            TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
            AlertTestSupport.provision(broker, catalog);
            Map<String, String> settings = AlertTestSupport.settings(broker, ns, "bench-lineage-alerts");
            settings.put("destinations.platformUrl", platform.url().toString());
            settings.put("destinations.platform.bearerToken", PlatformStandIn.TOKEN);
            settings.put("lineage.batchWindow", "PT0S");
            try (CdcConnector cdc = new CdcConnector(CdcConfig.fromMap(AlertTestSupport.cdcSettings(pg, broker, ns,
                    "cs_bench_lineage"))).start();
                 AlertService alerts = AlertService.start(AlertTestSupport.config(settings))) {
                long deadline = System.currentTimeMillis() + 60_000;
                while (!cdc.streaming() && System.currentTimeMillis() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                AlertTestSupport.create(alerts.httpPort(), """
                        {"name": "critical-failures", "alertType": "Observability", "resources": ["ingestionPipeline"],
                         "input": {"filters": [{"name": "filterByTag", "effect": "include",
                             "arguments": [{"name": "tagList", "input": ["Tier.Tier1"]}]}],
                           "actions": [{"name": "GetIngestionPipelineStatusUpdates", "effect": "include",
                             "arguments": [{"name": "ingestionPipelineStateList", "input": ["failed"]}]}]},
                         "destinations": [{"category": "External", "type": "OpenLineage",
                           "config": {"endpoint": "%s"}}], "retries": 3}
                        """.formatted(collector.url()));
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2)); // the subscription view and the assignment
                platform.latency(Duration.ofMillis(standInMs));
                run(pg, platform, collector, "warm", WARM_UP);
                phases.add(run(pg, platform, collector, "answering", seconds));
                platform.unavailable(true);
                phases.add(run(pg, platform, collector, "down", downSeconds));
                platform.unavailable(false);
                platform.latency(Duration.ofSeconds(5));
                phases.add(run(pg, platform, collector, "slow", downSeconds));
            }
        }
        System.out.println("lineage-latency: failed runs 1/s, stand-in of the platform's lineage API answering in "
                + standInMs + " ms (down: 503; slow: 5 s), latency = row commit → RunEvent at the collector");
        System.out.printf(Locale.ROOT, "%-10s %7s %9s %5s %12s %8s %8s %8s%n", "phase", "events", "received",
                "lost", "with impact", "p50 ms", "p99 ms", "max ms");
        for (Phase p : phases) {
            System.out.printf(Locale.ROOT, "%-10s %7d %9d %5d %12d %8.1f %8.1f %8.1f%n", p.name(), p.events(),
                    p.received(), p.lost(), p.withImpact(), p.p50(), p.p99(), p.max());
        }
        Phase main = phases.get(0);
        Phase down = phases.get(1);
        Phase slow = phases.get(2);
        System.out.printf(Locale.ROOT, "RESULT {\"scenario\":\"lineage-latency\",\"stand_in_ms\":%d,\"events\":%d,"
                        + "\"lost\":%d,\"with_impact\":%d,\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"down_events\":%d,"
                        + "\"down_lost\":%d,\"down_with_impact\":%d,\"down_p99_ms\":%.1f,\"slow_events\":%d,"
                        + "\"slow_lost\":%d,\"slow_with_impact\":%d,\"slow_p99_ms\":%.1f}%n", standInMs,
                main.events(), main.lost(), main.withImpact(), main.p50(), main.p99(), down.events(), down.lost(),
                down.withImpact(), down.p99(), slow.events(), slow.lost(), slow.withImpact(), slow.p99());
    }

    /** One failed run a second, each of a new Tier1 pipeline; waits up to 30 s for the last RunEvent. */
    private static Phase run(PostgresDatabase pg, PlatformStandIn platform, Collector collector, String phase,
                             int count) throws Exception {
        Map<String, Long> committed = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            String fqn = "mysql_prod." + phase + "_" + i;
            platform.ingestionPipeline(fqn, "metadata", "databaseService", "mysql_prod", "Tier.Tier1");
            long due = start + TimeUnit.SECONDS.toNanos(i);
            LockSupport.parkNanos(Math.max(0, due - System.nanoTime()));
            pg.execute(AlertTestSupport.statusRow(fqn, "run-" + i, "failed"));
            committed.put(fqn, System.currentTimeMillis());
        }
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline && !collector.arrived.keySet().containsAll(committed.keySet())) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        List<Long> latencies = new ArrayList<>();
        int withImpact = 0;
        for (Map.Entry<String, Long> e : committed.entrySet()) {
            Long at = collector.arrived.get(e.getKey());
            if (at != null) {
                latencies.add(at - e.getValue());
                if ("resolved".equals(collector.impact.get(e.getKey()))) {
                    withImpact++;
                }
            }
        }
        latencies.sort(Long::compare);
        return new Phase(phase, count, latencies.size(), withImpact, percentile(latencies, 0.50),
                percentile(latencies, 0.99), latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1));
    }

    private static double percentile(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(p * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank)));
    }

    /** A local OpenLineage collector: per job, when its first RunEvent arrived and its impact's status. */
    private static final class Collector implements AutoCloseable {
        final Map<String, Long> arrived = new ConcurrentHashMap<>();
        final Map<String, String> impact = new ConcurrentHashMap<>();
        private final HttpServer server;
        private final ExecutorService pool = Executors.newFixedThreadPool(8);

        Collector() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
            server.setExecutor(pool);
            server.createContext("/", exchange -> {
                long now = System.currentTimeMillis();
                JsonNode event = Json.mapper().readTree(exchange.getRequestBody().readAllBytes());
                String job = event.at("/job/name").asText();
                if (arrived.putIfAbsent(job, now) == null) {
                    impact.put(job, event.at("/run/facets/" + ImpactRunFacet.NAME + "/status").asText("none"));
                }
                exchange.sendResponseHeaders(201, -1);
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/lineage";
        }

        @Override
        public void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
