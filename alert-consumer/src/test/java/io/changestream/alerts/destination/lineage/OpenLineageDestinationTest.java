package io.changestream.alerts.destination.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OpenLineage destination against a real local HTTP receiver; every event received is schema-validated. */
class OpenLineageDestinationTest {

    record Posted(String path, String encoding, String idempotencyKey, String json) {
        /** The events of the request (one, or a batch array). */
        List<JsonNode> events() {
            JsonNode node = Json.mapper().valueToTree(OpenLineageClientUtils.fromJson(json,
                    new TypeReference<Object>() { }));
            List<JsonNode> out = new ArrayList<>();
            if (node.isArray()) {
                node.forEach(out::add);
            } else {
                out.add(node);
            }
            return out;
        }
    }

    private HttpServer server;
    private final List<Posted> posted = new CopyOnWriteArrayList<>();
    private final HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
            Clock.systemUTC());

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            byte[] raw = exchange.getRequestBody().readAllBytes();
            String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
            InputStream in = new ByteArrayInputStream(raw);
            if ("gzip".equals(encoding)) {
                in = new GZIPInputStream(in);
            }
            posted.add(new Posted(exchange.getRequestURI().getPath(), encoding,
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            exchange.sendResponseHeaders(201, -1);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }

    /** Every event every request carried, each validated against the shipped schemas. */
    private List<JsonNode> validatedEvents() {
        List<JsonNode> all = new ArrayList<>();
        for (Posted p : posted) {
            for (JsonNode event : p.events()) {
                List<String> violations = LineageSchemas.violations(event);
                assertEquals(List.of(), violations, "schema violations in " + event);
                all.add(event);
            }
        }
        return all;
    }

    private String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static PipelineRunStatus run(String runId, PipelineState state) {
        return new PipelineRunStatus("mysql_prod.ingest_orders", runId, state, 1_700_000_000_000L,
                1_700_000_060_000L, 1_699_999_990_000L);
    }

    private static DeliveryRequest request(SubscriptionDestination d, PipelineRunStatus status) {
        EventSubscription sub = EventSubscription.builder("s1", "lineage").destinations(List.of(d)).build();
        return DeliveryRequest.ofRun(sub, d, status, 1);
    }

    private SubscriptionDestination destination(String extra) throws IOException {
        return new SubscriptionDestination("ol", SubscriptionCategory.EXTERNAL, SubscriptionType.OPEN_LINEAGE,
                Json.mapper().readTree("{\"endpoint\":\"" + base() + "/api/v1/lineage\"" + extra + "}"));
    }

    private static LineageSettings settings(Duration batchWindow) {
        LineageSettings d = LineageSettings.DEFAULTS;
        return new LineageSettings(d.namespace(), d.producer(), d.statuses(), d.gzipThresholdBytes(),
                d.maxBatchEvents(), batchWindow, URI.create("https://metadata.example.com"), d.kafkaTopics());
    }

    @Test
    void aFailedRunIsAValidFailEventWithDatasetsAndFacets() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ZERO), sender, null);
        DeliveryResult result = lineage.deliver(request(destination(""), run("run-7", PipelineState.FAILED)));

        assertTrue(result.isDelivered(), String.valueOf(result));
        assertEquals(1, posted.size());
        JsonNode json = validatedEvents().get(0);
        assertTrue(json.get("schemaURL").asText().startsWith(LineageSchemas.SPEC_ID), json.toString());
        OpenLineage.RunEvent event = OpenLineageClientUtils.fromJson(posted.get(0).json(),
                new TypeReference<OpenLineage.RunEvent>() { });
        assertEquals(OpenLineage.RunEvent.EventType.FAIL, event.getEventType());
        assertEquals("mysql_prod.ingest_orders", event.getJob().getName());
        assertEquals("openmetadata", event.getJob().getNamespace());
        assertEquals(RunEvents.runUuid("mysql_prod.ingest_orders", "run-7"), event.getRun().getRunId());
        assertEquals(1_700_000_060_000L, event.getEventTime().toInstant().toEpochMilli());
        assertEquals(LineageSettings.DEFAULTS.producer().toString(), json.get("producer").asText());

        // the service is read, its catalog in the platform written
        assertEquals("mysql_prod", json.at("/inputs/0/namespace").asText());
        assertEquals("mysql_prod", json.at("/inputs/0/name").asText());
        assertEquals("https://metadata.example.com", json.at("/outputs/0/namespace").asText());
        assertEquals("mysql_prod", json.at("/outputs/0/name").asText());
        JsonNode runFacets = json.at("/run/facets");
        assertTrue(runFacets.at("/errorMessage/message").asText().contains("run-7 failed"), runFacets.toString());
        assertEquals("PYTHON", runFacets.at("/errorMessage/programmingLanguage").asText());
        assertEquals("changestream", runFacets.at("/processing_engine/name").asText());
        assertEquals(1_699_999_990_000L, event.getRun().getFacets().getNominalTime().getNominalStartTime()
                .toInstant().toEpochMilli(), "the platform's execution date is the run's nominal time");
        assertEquals("BATCH", json.at("/job/facets/jobType/processingType").asText());
        assertEquals("OPENMETADATA", json.at("/job/facets/jobType/integration").asText());
        assertEquals("INGESTION_PIPELINE", json.at("/job/facets/jobType/jobType").asText());
        assertEquals("s1:mysql_prod.ingest_orders/run-7/failed/1699999990000", posted.get(0).idempotencyKey());
    }

    @Test
    void onlyAFailCarriesAnErrorMessage() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ZERO), sender, null);
        lineage.deliver(request(destination(""), run("ok", PipelineState.SUCCESS)));
        JsonNode json = validatedEvents().get(0);
        assertEquals("COMPLETE", json.get("eventType").asText());
        assertTrue(json.at("/run/facets/errorMessage").isMissingNode());
        assertFalse(json.at("/run/facets/nominalTime").isMissingNode());
    }

    @Test
    void theShippedSchemasRejectAnInvalidEventAndAnInvalidFacet() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ZERO), sender, null);
        lineage.deliver(request(destination(""), run("run-7", PipelineState.FAILED)));
        JsonNode valid = posted.get(0).events().get(0);

        ObjectNode noRunId = valid.deepCopy();
        ((ObjectNode) noRunId.get("run")).put("runId", "not-a-uuid");
        assertFalse(LineageSchemas.violations(noRunId).isEmpty(), "runId must be a uuid");
        ObjectNode badFacet = valid.deepCopy();
        ((ObjectNode) badFacet.at("/run/facets/errorMessage")).remove("programmingLanguage");
        assertFalse(LineageSchemas.violations(badFacet).isEmpty(), "programmingLanguage is required");
        ObjectNode unknownFacet = valid.deepCopy();
        ((ObjectNode) unknownFacet.at("/run/facets")).set("made_up", valid.at("/run/facets/nominalTime"));
        assertFalse(LineageSchemas.violations(unknownFacet).isEmpty(), "no facet goes unchecked");
    }

    @Test
    void aPipelineWithoutAServicePartHasNoDatasetsAndQuotedServicesAreUnquoted() {
        assertNull(RunEvents.serviceName("standalone"));
        assertEquals("my.svc", RunEvents.serviceName("\"my.svc\".ingest"));
        assertEquals("svc", RunEvents.serviceName("svc.\"a.b\""));
        OpenLineage.RunEvent event = RunEvents.of(new PipelineRunStatus("standalone", "r", PipelineState.FAILED,
                1L, 2L, 3L), LineageSettings.DEFAULTS);
        assertEquals(List.of(), event.getInputs());
        assertEquals(List.of(), event.getOutputs());
    }

    @Test
    void runIdsAreKeptWhenTheyAreUuidsAndDerivedDeterministicallyOtherwise() {
        UUID uuid = UUID.randomUUID();
        assertEquals(uuid, RunEvents.runUuid("p", uuid.toString()));
        assertEquals(RunEvents.runUuid("p", "scheduled__2026"), RunEvents.runUuid("p", "scheduled__2026"));
        assertEquals(OpenLineage.RunEvent.EventType.ABORT, RunEvents.eventType(PipelineState.STOPPED));
        assertEquals(OpenLineage.RunEvent.EventType.COMPLETE, RunEvents.eventType(PipelineState.PARTIAL_SUCCESS));
        assertEquals(OpenLineage.RunEvent.EventType.START, RunEvents.eventType(PipelineState.QUEUED));
    }

    @Test
    void statusesThatDoNotMatterAreSettledWithoutSending() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(LineageSettings.DEFAULTS, sender, null);
        DeliveryResult result = lineage.deliver(request(destination(""), run("r", PipelineState.RUNNING)));
        assertTrue(result.isDelivered() && result.isSkipped(), "settled, counted as skipped: " + result);
        assertEquals(0, posted.size());
    }

    @Test
    void aDestinationOverridesNamespaceAndStatuses() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ZERO), sender, null);
        SubscriptionDestination d = destination(",\"namespace\":\"prod-lineage\",\"statuses\":[\"running\"]");
        assertTrue(lineage.deliver(request(d, run("r", PipelineState.FAILED))).isSkipped());
        assertEquals(0, posted.size(), "failed is not one of this destination's statuses");
        DeliveryResult sent = lineage.deliver(request(d, run("r", PipelineState.RUNNING)));
        assertTrue(sent.isDelivered() && !sent.isSkipped(), String.valueOf(sent));
        JsonNode json = validatedEvents().get(0);
        assertEquals("RUNNING", json.get("eventType").asText());
        assertEquals("prod-lineage", json.at("/job/namespace").asText());
    }

    @Test
    void badOverridesAreRefusedNamingTheField() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(LineageSettings.DEFAULTS, sender, null);
        assertEquals("config.statuses", assertThrows(DestinationConfigException.class,
                () -> lineage.transport(destination(",\"statuses\":[\"exploded\"]"))).field());
        assertEquals("config.maxBatchEvents", assertThrows(DestinationConfigException.class,
                () -> lineage.transport(destination(",\"maxBatchEvents\":0"))).field());
        assertEquals("config.namespace", assertThrows(DestinationConfigException.class,
                () -> lineage.transport(destination(",\"namespace\":\"\""))).field());
        assertEquals(DeliveryResult.Kind.PERMANENT, lineage.deliver(request(
                destination(",\"gzipThresholdBytes\":-1"), run("r", PipelineState.FAILED))).outcome());
        assertEquals(Set.of(PipelineState.FAILED, PipelineState.PARTIAL_SUCCESS),
                io.changestream.alerts.platform.PlatformNames.RUN_STATES.parseList("failed, PARTIALSUCCESS"));
    }

    @Test
    void batchesGoToTheBatchEndpointGzippedAboveTheThresholdWithAKey() throws IOException {
        LineageSettings small = new LineageSettings("ns", LineageSettings.DEFAULTS.producer(),
                LineageSettings.DEFAULTS.statuses(), 200, 2);
        OpenLineageDestination lineage = new OpenLineageDestination(small, sender, null);
        SubscriptionDestination d = destination(",\"batchEndpoint\":\"" + base() + "/api/v1/lineage/batch\"");
        List<DeliveryRequest> requests = List.of(request(d, run("a", PipelineState.SUCCESS)),
                request(d, run("b", PipelineState.FAILED)), request(d, run("c", PipelineState.RUNNING)),
                request(d, run("d", PipelineState.STOPPED)));

        List<DeliveryResult> results = lineage.deliverAll(requests);

        assertTrue(results.stream().allMatch(DeliveryResult::isDelivered), results.toString());
        assertEquals(2, posted.size(), "3 events in batches of 2");
        assertEquals("/api/v1/lineage/batch", posted.get(0).path());
        assertEquals("gzip", posted.get(0).encoding());
        assertEquals(3, validatedEvents().size());
        assertEquals(HttpLineageTransport.batchKey(List.of(requests.get(0).idempotencyKey(),
                requests.get(1).idempotencyKey())), posted.get(0).idempotencyKey());
        List<OpenLineage.RunEvent> first = OpenLineageClientUtils.fromJson(posted.get(0).json(),
                new TypeReference<List<OpenLineage.RunEvent>>() { });
        assertEquals(OpenLineage.RunEvent.EventType.COMPLETE, first.get(0).getEventType());
        assertEquals("ns", first.get(0).getJob().getNamespace());
    }

    @Test
    void eventsFromSeveralThreadsWithinTheWindowShareOneRequest() throws Exception {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ofMillis(500)), sender, null);
        SubscriptionDestination d = destination(",\"batchEndpoint\":\"" + base() + "/api/v1/lineage/batch\"");
        ExecutorService lanes = Executors.newFixedThreadPool(5);
        try {
            List<Future<DeliveryResult>> results = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                DeliveryRequest r = request(d, run("lane-" + i, PipelineState.FAILED));
                results.add(lanes.submit(() -> lineage.deliver(r)));
            }
            for (Future<DeliveryResult> result : results) {
                assertTrue(result.get().isDelivered(), String.valueOf(result.get()));
            }
        } finally {
            lanes.shutdownNow();
        }
        assertEquals(1, posted.size(), "one request for the five events");
        assertEquals(5, validatedEvents().size());
        assertTrue(posted.get(0).idempotencyKey().startsWith("batch:"), posted.get(0).idempotencyKey());
    }

    @Test
    void withoutABatchEndpointEachEventIsItsOwnRequestWithItsOwnKey() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(settings(Duration.ofSeconds(5)), sender, null);
        SubscriptionDestination d = destination("");
        long start = System.nanoTime();
        lineage.deliverAll(List.of(request(d, run("a", PipelineState.FAILED)),
                request(d, run("b", PipelineState.FAILED))));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(4).toNanos(), "no batch window without batching");
        assertEquals(2, posted.size());
        assertEquals("s1:mysql_prod.ingest_orders/a/failed/1699999990000", posted.get(0).idempotencyKey());
        assertEquals("s1:mysql_prod.ingest_orders/b/failed/1699999990000", posted.get(1).idempotencyKey());
        validatedEvents();
    }

    @Test
    void changeEventsAndBadConfigArePermanent() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(LineageSettings.DEFAULTS, sender, null);
        SubscriptionDestination kafka = new SubscriptionDestination("k", SubscriptionCategory.EXTERNAL,
                SubscriptionType.OPEN_LINEAGE, Json.mapper().readTree("{\"transport\":\"kafka\",\"topic\":\"ol\"}"));
        assertEquals(DeliveryResult.Kind.PERMANENT,
                lineage.deliver(request(kafka, run("r", PipelineState.FAILED))).outcome(), "no producer here");
    }
}
