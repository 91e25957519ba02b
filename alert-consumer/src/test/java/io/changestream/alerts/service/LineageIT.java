package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.lineage.LineageSchemas;
import io.changestream.alerts.destination.lineage.RunEvents;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Run statuses on the real path (broker {@code pipeline-status} → alert service → a local OpenLineage receiver):
 * the subscription's filter picks the failed runs, each arrives once as a FAIL RunEvent that validates against the
 * shipped official schemas and carries its datasets and error facet, and a burst goes in batches to the batch
 * endpoint, each request with an {@code Idempotency-Key}.
 */
class LineageIT {

    private static final int RUNS = 12;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void failedRunsArriveOnceAsValidFailEventsWithDatasetsAndTheErrorFacetInBatches() throws Exception {
        String ns = AlertTestSupport.namespace("lineage");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("lineage.batchWindow", "PT0.5S");
        settings.put("destinations.platformUrl", "https://metadata.example.com");
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
            create(service.httpPort(), """
                    {"name": "failed-runs", "alertType": "Observability", "resources": ["ingestionPipeline"],
                     "input": {"filters": [], "actions": [{"name": "GetIngestionPipelineStatusUpdates",
                       "effect": "include", "arguments": [{"name": "ingestionPipelineStateList",
                       "input": ["failed"]}]}]},
                     "destinations": [{"category": "External", "type": "OpenLineage",
                       "config": {"endpoint": "%s", "batchEndpoint": "%s"}}], "retries": 5}
                    """.formatted(receiver.url("/api/v1/lineage"), receiver.url("/api/v1/lineage/batch")));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.runtime().status().partitions()
                    .stream().anyMatch(p -> p.topic().equals(catalog.pipelineStatus().name())));

            List<PipelineRunStatus> statuses = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                PipelineState state = i % 2 == 0 ? PipelineState.FAILED : PipelineState.SUCCESS;
                statuses.add(new PipelineRunStatus("mysql_prod.ingest_" + i, "run-" + i, state,
                        1_700_000_000_000L + i, 1_700_000_060_000L + i, 1_699_999_990_000L + i));
            }
            AlertTestSupport.produceRuns(broker, catalog, statuses);

            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> events(receiver).size() >= RUNS / 2);
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);

            List<JsonNode> events = events(receiver);
            assertEquals(RUNS / 2, events.size(), "each failed run once; the successful ones are filtered out");
            Set<String> jobs = new HashSet<>();
            for (JsonNode event : events) {
                assertEquals(List.of(), LineageSchemas.violations(event), event.toString());
                assertEquals("FAIL", event.get("eventType").asText());
                String job = event.at("/job/name").asText();
                jobs.add(job);
                assertEquals(RunEvents.runUuid(job, "run-" + job.substring(job.lastIndexOf('_') + 1)).toString(),
                        event.at("/run/runId").asText());
                assertEquals("mysql_prod", event.at("/inputs/0/namespace").asText());
                assertEquals("https://metadata.example.com", event.at("/outputs/0/namespace").asText());
                assertEquals("mysql_prod", event.at("/outputs/0/name").asText());
                assertTrue(event.at("/run/facets/errorMessage/message").asText().contains("failed"));
                assertEquals("INGESTION_PIPELINE", event.at("/job/facets/jobType/jobType").asText());
            }
            assertEquals(RUNS / 2, jobs.size());
            List<Receiver.Hit> requests = receiver.all();
            assertTrue(requests.size() < RUNS / 2, "the burst was batched: " + requests.size() + " requests");
            assertTrue(requests.stream().anyMatch(h -> h.path().equals("/api/v1/lineage/batch")));
            assertTrue(requests.stream().allMatch(h -> h.idempotencyKey() != null && !h.idempotencyKey().isBlank()),
                    "every lineage request carries an Idempotency-Key");
        }
    }

    /**
     * Issue 23: run states outside the destination's {@code statuses} are settled without sending. {@code /status}
     * used to count them as delivered (a dev-stack receiver got nothing while it said "delivered 4"): they are
     * {@code skipped}, and {@code delivered} counts only what the receiver accepted.
     */
    @Test
    void runStatesOutsideTheDestinationsStatusesCountAsSkippedNotDelivered() throws Exception {
        String ns = AlertTestSupport.namespace("lineage-skip");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 2);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("lineage.batchWindow", "PT0S");
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
            String id = create(service.httpPort(), """
                    {"name": "failed-only", "alertType": "Observability", "resources": ["ingestionPipeline"],
                     "input": {"filters": [], "actions": [{"name": "GetIngestionPipelineStatusUpdates",
                       "effect": "include", "arguments": [{"name": "ingestionPipelineStateList",
                       "input": ["failed", "success"]}]}]},
                     "destinations": [{"category": "External", "type": "OpenLineage",
                       "config": {"endpoint": "%s", "statuses": ["failed"]}}], "retries": 3}
                    """.formatted(receiver.url("/api/v1/lineage")));
            List<PipelineRunStatus> runs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                runs.add(new PipelineRunStatus("mysql_prod.skip_" + i, "run-" + i, i < 2 ? PipelineState.FAILED
                        : PipelineState.SUCCESS, 1_700_000_000_000L + i, 1_700_000_060_000L + i,
                        1_699_999_990_000L + i));
            }
            AlertTestSupport.produceRuns(broker, catalog, runs);
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                JsonNode d = status(service, id).get("destinations").get(0);
                return d.path("delivered").asLong() + d.path("skipped").asLong() >= runs.size();
            });
            JsonNode destination = status(service, id).get("destinations").get(0);
            assertEquals(2, receiver.all().size(), "the failed runs were sent");
            assertEquals(2, destination.get("delivered").asLong(), "delivered: what the receiver accepted: "
                    + destination);
            assertEquals(3, destination.path("skipped").asLong(), "the successful runs were settled unsent: "
                    + destination);
            assertEquals(0, destination.get("failed").asLong(), destination.toString());
        }
    }

    private static JsonNode status(AlertService service, String id) {
        AlertTestSupport.Answer answer = AlertTestSupport.call(service.httpPort(), "GET",
                "/api/v1/events/subscriptions/" + id + "/status", null);
        assertEquals(200, answer.status(), answer.body());
        return answer.json();
    }

    /** Every event the receiver got, batches unpacked. */
    private static List<JsonNode> events(Receiver receiver) {
        List<JsonNode> out = new ArrayList<>();
        for (Receiver.Hit hit : receiver.all()) {
            if (hit.body().isArray()) {
                hit.body().forEach(out::add);
            } else {
                out.add(hit.body());
            }
        }
        return out;
    }
}
