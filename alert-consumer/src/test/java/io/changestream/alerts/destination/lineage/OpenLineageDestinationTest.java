package io.changestream.alerts.destination.lineage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.sun.net.httpserver.HttpServer;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.HttpSender;
import io.changestream.alerts.destination.HttpSettings;
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
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpenLineageDestinationTest {

    record Posted(String path, String encoding, String json) {
    }

    private HttpServer server;
    private final List<Posted> posted = new CopyOnWriteArrayList<>();
    private final HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
            Clock.systemUTC());

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", exchange -> {
            byte[] raw = exchange.getRequestBody().readAllBytes();
            String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
            InputStream in = new ByteArrayInputStream(raw);
            if ("gzip".equals(encoding)) {
                in = new GZIPInputStream(in);
            }
            posted.add(new Posted(exchange.getRequestURI().getPath(), encoding,
                    new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            exchange.sendResponseHeaders(201, -1);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static PipelineRunStatus run(String runId, PipelineState state) {
        return new PipelineRunStatus("svc.ingest_orders", runId, state, 1_700_000_000_000L, 1_700_000_060_000L,
                1_700_000_061_000L);
    }

    private static DeliveryRequest request(SubscriptionDestination d, PipelineRunStatus status) {
        EventSubscription sub = EventSubscription.builder("s1", "lineage").destinations(List.of(d)).build();
        return DeliveryRequest.ofRun(sub, d, status, 1);
    }

    private SubscriptionDestination destination(String extra) throws IOException {
        return new SubscriptionDestination("ol", SubscriptionCategory.EXTERNAL, SubscriptionType.OPEN_LINEAGE,
                Json.mapper().readTree("{\"endpoint\":\"" + base() + "/api/v1/lineage\"" + extra + "}"));
    }

    @Test
    void aFailedRunBecomesAFailRunEventForThePipelineJob() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(LineageSettings.DEFAULTS, sender, null);
        DeliveryResult result = lineage.deliver(request(destination(""), run("run-7", PipelineState.FAILED)));

        assertTrue(result.isDelivered(), String.valueOf(result));
        assertEquals(1, posted.size());
        OpenLineage.RunEvent event = OpenLineageClientUtils.fromJson(posted.get(0).json(),
                new TypeReference<OpenLineage.RunEvent>() { });
        assertEquals(OpenLineage.RunEvent.EventType.FAIL, event.getEventType());
        assertEquals("svc.ingest_orders", event.getJob().getName());
        assertEquals("openmetadata", event.getJob().getNamespace());
        assertEquals(RunEvents.runUuid("svc.ingest_orders", "run-7"), event.getRun().getRunId());
        assertEquals(1_700_000_060_000L, event.getEventTime().toInstant().toEpochMilli());
        com.fasterxml.jackson.databind.JsonNode json = Json.mapper().readTree(posted.get(0).json());
        for (String required : List.of("eventType", "eventTime", "run", "job", "producer", "schemaURL")) {
            assertTrue(json.hasNonNull(required), "the spec requires " + required + ": " + json);
        }
        UUID.fromString(json.get("run").get("runId").asText());
        assertTrue(json.get("schemaURL").asText().startsWith("https://openlineage.io/spec/"), json.toString());
        assertEquals(LineageSettings.DEFAULTS.producer().toString(), json.get("producer").asText());
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
        assertTrue(lineage.deliver(request(destination(""), run("r", PipelineState.RUNNING))).isDelivered());
        assertEquals(0, posted.size());
    }

    @Test
    void batchesGoToTheBatchEndpointGzippedAboveTheThreshold() throws IOException {
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
        List<OpenLineage.RunEvent> first = OpenLineageClientUtils.fromJson(posted.get(0).json(),
                new TypeReference<List<OpenLineage.RunEvent>>() { });
        assertEquals(2, first.size());
        assertEquals(OpenLineage.RunEvent.EventType.COMPLETE, first.get(0).getEventType());
        assertEquals("ns", first.get(0).getJob().getNamespace());
    }

    @Test
    void changeEventsAndBadConfigArePermanent() throws IOException {
        OpenLineageDestination lineage = new OpenLineageDestination(LineageSettings.DEFAULTS, sender, null);
        SubscriptionDestination kafka = new SubscriptionDestination("k", SubscriptionCategory.EXTERNAL,
                SubscriptionType.OPEN_LINEAGE, Json.mapper().readTree("{\"transport\":\"kafka\",\"topic\":\"ol\"}"));
        assertEquals(DeliveryResult.Outcome.PERMANENT,
                lineage.deliver(request(kafka, run("r", PipelineState.FAILED))).outcome(), "no producer here");
    }
}
