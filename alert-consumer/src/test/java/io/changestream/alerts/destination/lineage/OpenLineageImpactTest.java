package io.changestream.alerts.destination.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.alerts.impact.ImpactFixture;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.alerts.impact.ImpactSettings;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RunEvents with the platform's lineage (issue 28): real datasets and the impact facet, from the stand-in of the
 * platform's lineage, entity and user APIs, at a real local OpenLineage receiver; every event validated against the
 * OpenLineage spec and the facet's own schema.
 */
class OpenLineageImpactTest {

    private final PlatformStandIn platform = new PlatformStandIn();
    private final List<JsonNode> received = new CopyOnWriteArrayList<>();
    private com.sun.net.httpserver.HttpServer collector;
    private final HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
            Clock.systemUTC());

    @BeforeEach
    void start() throws IOException {
        ImpactEstate.fill(platform);
        collector = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 16);
        collector.createContext("/", exchange -> {
            received.add(Json.mapper().readTree(exchange.getRequestBody().readAllBytes()));
            exchange.sendResponseHeaders(201, -1);
            exchange.close();
        });
        collector.start();
    }

    @AfterEach
    void stop() {
        collector.stop(0);
        platform.close();
    }

    private OpenLineageDestination lineage(ImpactSettings impact) {
        LineageSettings d = LineageSettings.DEFAULTS;
        LineageSettings settings = new LineageSettings(d.namespace(), d.producer(), d.statuses(),
                d.gzipThresholdBytes(), d.maxBatchEvents(), Duration.ZERO, URI.create("https://metadata.example.com"),
                d.kafkaTopics());
        return new OpenLineageDestination(settings, sender, null,
                new ImpactResolver(impact, ImpactFixture.platform(platform), Clock.systemUTC()));
    }

    private DeliveryRequest request(PipelineState state, String extraConfig) throws IOException {
        SubscriptionDestination d = new SubscriptionDestination("ol", SubscriptionCategory.EXTERNAL,
                SubscriptionType.OPEN_LINEAGE, Json.mapper().readTree("{\"endpoint\":\"http://127.0.0.1:"
                + collector.getAddress().getPort() + "/api/v1/lineage\"" + extraConfig + "}"));
        EventSubscription sub = EventSubscription.builder("s1", "lineage").destinations(List.of(d)).build();
        return DeliveryRequest.ofRun(sub, d, new PipelineRunStatus(ImpactEstate.PIPELINE, "run-9", state,
                1_700_000_000_000L, 1_700_000_060_000L, 1_699_999_990_000L), 1);
    }

    private JsonNode onlyEvent() {
        assertEquals(1, received.size());
        JsonNode event = received.get(0);
        assertEquals(List.of(), LineageSchemas.violations(event), "schema violations in " + event);
        return event;
    }

    private static List<String> names(JsonNode datasets) {
        List<String> out = new ArrayList<>();
        datasets.forEach(d -> out.add(d.get("namespace").asText() + " " + d.get("name").asText()));
        return out;
    }

    @Test
    void aFailedRunCarriesItsRealDatasetsAndItsDownstreamImpactWithOwnersAndTiers() throws IOException {
        DeliveryResult result = lineage(ImpactSettings.DEFAULTS).deliver(request(PipelineState.FAILED, ""));
        assertTrue(result.isDelivered(), String.valueOf(result));
        JsonNode event = onlyEvent();
        assertEquals("FAIL", event.get("eventType").asText());
        assertEquals(List.of("mysql_prod mysql_prod.shop.public.customers", "mysql_prod mysql_prod.shop.public.orders"),
                names(event.get("inputs")));
        assertEquals(List.of("https://metadata.example.com mysql_prod.shop.public.customers",
                "https://metadata.example.com mysql_prod.shop.public.orders"), names(event.get("outputs")));
        JsonNode impact = event.at("/run/facets/" + ImpactRunFacet.NAME);
        assertEquals(ImpactRunFacet.SCHEMA_URL.toString(), impact.get("_schemaURL").asText());
        assertEquals("resolved", impact.get("status").asText());
        assertEquals("metadata", impact.get("pipelineType").asText());
        assertEquals(5, impact.get("total").asInt());
        assertFalse(impact.get("truncated").asBoolean());
        List<String> assets = new ArrayList<>();
        impact.get("assets").forEach(a -> assets.add(a.get("entityType").asText() + " "
                + a.get("fullyQualifiedName").asText() + " " + a.get("depth").asInt() + " "
                + a.path("tier").asText("-") + " " + a.get("owners").findValuesAsText("name")));
        assertEquals(List.of(
                "table mysql_prod.shop.public.customers 0 Tier.Tier2 [bob]",
                "table mysql_prod.shop.public.orders 0 Tier.Tier1 [ana]",
                "table warehouse.dw.sales.daily_orders 1 Tier.Tier1 [data-eng]",
                "dashboard superset.revenue 2 Tier.Tier1 [bob]",
                "mlmodel ml.churn 3 - [ana]"), assets);
        assertEquals("team", impact.at("/assets/2/owners/0/type").asText());
    }

    @Test
    void aDestinationsTiersLimitTheImpactItCarries() throws IOException {
        lineage(ImpactSettings.DEFAULTS).deliver(request(PipelineState.STOPPED, ",\"impactTiers\":[\"Tier.Tier1\"]"));
        JsonNode event = onlyEvent();
        assertEquals("ABORT", event.get("eventType").asText());
        JsonNode impact = event.at("/run/facets/" + ImpactRunFacet.NAME);
        assertEquals("[\"Tier.Tier1\"]", impact.get("tiers").toString());
        assertEquals(3, impact.get("total").asInt());
        assertEquals(List.of("mysql_prod.shop.public.orders", "warehouse.dw.sales.daily_orders", "superset.revenue"),
                impact.get("assets").findValuesAsText("fullyQualifiedName"));
    }

    @Test
    void aSuccessfulRunHasItsRealDatasetsButNoImpact() throws IOException {
        lineage(ImpactSettings.DEFAULTS).deliver(request(PipelineState.SUCCESS, ""));
        JsonNode event = onlyEvent();
        assertEquals("COMPLETE", event.get("eventType").asText());
        assertEquals(2, event.get("outputs").size());
        assertTrue(event.at("/run/facets/" + ImpactRunFacet.NAME).isMissingNode());
    }

    @Test
    void aPlatformThatIsDownOrSlowDelaysNothingAndTheEventSaysTheImpactIsUnknown() throws IOException {
        platform.latency(Duration.ofSeconds(3));
        long start = System.nanoTime();
        DeliveryResult result = lineage(ImpactSettings.DEFAULTS.with(Duration.ofMillis(300), Set.of()))
                .deliver(request(PipelineState.FAILED, ""));
        long took = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertTrue(result.isDelivered(), String.valueOf(result));
        assertTrue(took < 2000, "delivered after " + took + " ms");
        JsonNode event = onlyEvent();
        JsonNode impact = event.at("/run/facets/" + ImpactRunFacet.NAME);
        assertEquals("unavailable", impact.get("status").asText());
        assertEquals("the platform's lineage did not answer within 300 ms", impact.get("reason").asText());
        assertEquals(0, impact.get("assets").size());
        // the service stands in for the datasets it could not name
        assertEquals(List.of("https://metadata.example.com mysql_prod"), names(event.get("outputs")));
    }

    @Test
    void theValidatorRefusesAnImpactFacetThatBreaksItsSchema() throws IOException {
        ObjectNode event = (ObjectNode) Json.mapper().readTree(io.openlineage.client.OpenLineageClientUtils
                .toJson(RunEvents.of(new PipelineRunStatus("svc.p", "r", PipelineState.FAILED, 1L, 2L, 3L),
                        LineageSettings.DEFAULTS)));
        ObjectNode facet = ((ObjectNode) event.get("run").get("facets")).putObject(ImpactRunFacet.NAME);
        facet.put("_producer", "https://x").put("_schemaURL", ImpactRunFacet.SCHEMA_URL.toString())
                .put("status", "maybe").put("total", -1).put("truncated", false).putArray("assets");
        List<String> violations = LineageSchemas.violations(event);
        assertTrue(violations.stream().anyMatch(v -> v.contains("status")), violations.toString());
        assertTrue(violations.stream().anyMatch(v -> v.contains("total")), violations.toString());
    }
}
