package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * All real, from a database insert: rows land in the platform's {@code change_event} (and run-status) table of a
 * PostgreSQL with logical decoding, the cdc-connector captures them into {@code changes} and
 * {@code pipeline-status}, two alert service instances deliver to a webhook, Slack- and Teams-shaped receivers,
 * GreenMail and an OpenLineage endpoint. Every matching event arrives once with the inserted fields, non-matching
 * ones never; a failed pipeline run becomes one OpenLineage FAIL event, a running one none (not a status that
 * matters by default).
 */
class CdcEndToEndIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private static final int ROWS = 120;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void insertedRowsReachTheirSubscribersOnceThroughCaptureAndTwoInstances() throws Exception {
        String ns = AlertTestSupport.namespace("cdc");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 6);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
        String slot = "cs_alerts_" + UUID.randomUUID().toString().substring(0, 8);
        try (PostgresDatabase pg = PostgresDatabase.start(); Receiver receiver = new Receiver()) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            try (CdcConnector cdc = new CdcConnector(CdcConfig.fromMap(AlertTestSupport.cdcSettings(pg, broker, ns, slot))).start();
                 AlertService a = AlertService.start(AlertTestSupport.config(settings));
                 AlertService b = AlertService.start(AlertTestSupport.config(settings))) {
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(cdc::streaming);
                String tables = create(a.httpPort(), request("tables", "[\"table\"]", """
                        [{"name": "filterByEventType", "effect": "include",
                          "arguments": [{"name": "eventTypeList", "input": ["entityCreated", "entityUpdated"]}]}]""",
                        "[" + webhook("Webhook", receiver.url("/tables"), "cdc-secret") + "]", 3));
                create(b.httpPort(), request("all-slack", "[\"all\"]", "[]",
                        "[" + webhook("Slack", receiver.url("/slack"), null) + "]", 3));
                create(a.httpPort(), request("dashboards", "[\"dashboard\"]", "[]",
                        "[" + webhook("MsTeams", receiver.url("/teams"), null) + ","
                                + "{\"category\": \"External\", \"type\": \"Email\","
                                + " \"config\": {\"receivers\": [\"data@cs.test\"]}}]", 3));
                String lineage = create(b.httpPort(), """
                        {"name": "lineage", "alertType": "Observability", "resources": ["ingestionPipeline"],
                         "destinations": [{"category": "External", "type": "OpenLineage",
                           "config": {"transport": "http", "endpoint": "%s"}}]}
                        """.formatted(receiver.url("/lineage")));
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> call(a.httpPort(), "GET",
                        "/api/v1/events/subscriptions/" + lineage, null).status() == 200);

                List<Map<String, String>> rows = new ArrayList<>();
                String[] types = {"table", "dashboard", "topic"};
                String[] eventTypes = {"entityCreated", "entityUpdated", "entityDeleted"};
                for (int i = 0; i < ROWS; i++) {
                    Map<String, String> row = new HashMap<>();
                    row.put("id", UUID.randomUUID().toString());
                    row.put("entityId", UUID.nameUUIDFromBytes(("cdc-" + (i % 17)).getBytes()).toString());
                    row.put("entityType", types[i % 3]);
                    row.put("eventType", eventTypes[(i / 3) % 3]);
                    row.put("fqn", "svc.db.schema." + types[i % 3] + i);
                    rows.add(row);
                    pg.execute("INSERT INTO change_event (json) VALUES ('" + changeEventJson(row) + "'::jsonb)");
                }
                String failedRun = UUID.randomUUID().toString();
                String runningRun = UUID.randomUUID().toString();
                pg.execute(AlertTestSupport.statusRow("svc.ingest.metadata", runningRun, "running"));
                pg.execute(AlertTestSupport.statusRow("svc.ingest.metadata", failedRun, "failed"));

                Set<String> wantTables = rows.stream().filter(r -> r.get("entityType").equals("table")
                                && !r.get("eventType").equals("entityDeleted"))
                        .map(r -> r.get("id")).collect(Collectors.toSet());
                long dashboards = rows.stream().filter(r -> r.get("entityType").equals("dashboard")).count();
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                        receiver.hits("/tables").size() >= wantTables.size()
                                && receiver.hits("/slack").size() >= ROWS
                                && receiver.hits("/teams").size() >= dashboards
                                && SMTP.getReceivedMessages().length >= dashboards
                                && !receiver.hits("/lineage").isEmpty());
                Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);

                List<Receiver.Hit> tableHits = receiver.hits("/tables");
                assertEquals(wantTables, tableHits.stream().map(h -> h.body().get("id").asText())
                        .collect(Collectors.toSet()));
                assertEquals(wantTables.size(), tableHits.size(), "once each");
                Map<String, Map<String, String>> byId = rows.stream().collect(Collectors.toMap(r -> r.get("id"),
                        r -> r));
                for (Receiver.Hit hit : tableHits) {
                    Map<String, String> row = byId.get(hit.body().get("id").asText());
                    assertEquals(row.get("entityId"), hit.body().get("entityId").asText());
                    assertEquals(row.get("eventType"), hit.body().get("eventType").asText());
                    assertEquals(row.get("fqn"), hit.body().get("entityFullyQualifiedName").asText());
                    assertEquals(tables + ":" + row.get("id"), hit.idempotencyKey());
                    assertTrue(hit.body().has("source"), "the capture position travels with the event");
                }
                assertEquals(ROWS, receiver.hits("/slack").size());
                assertEquals(ROWS, receiver.hits("/slack").stream().map(Receiver.Hit::idempotencyKey).distinct()
                        .count());
                assertEquals(dashboards, receiver.hits("/teams").size());
                assertEquals(dashboards, SMTP.getReceivedMessages().length);

                List<Receiver.Hit> lineageHits = receiver.hits("/lineage");
                assertEquals(1, lineageHits.size(), "only the failed run matters by default");
                JsonNode runEvent = lineageHits.get(0).body();
                assertEquals("FAIL", runEvent.get("eventType").asText());
                assertEquals("svc.ingest.metadata", runEvent.path("job").path("name").asText());
                assertEquals(failedRun, runEvent.path("run").path("runId").asText());
            }
        }
    }

    private static String changeEventJson(Map<String, String> row) {
        return ("{\"id\":\"%s\",\"eventType\":\"%s\",\"entityType\":\"%s\",\"entityId\":\"%s\","
                + "\"entityFullyQualifiedName\":\"%s\",\"userName\":\"alice\",\"timestamp\":%d,"
                + "\"previousVersion\":0.1,\"currentVersion\":0.2}").formatted(row.get("id"), row.get("eventType"),
                row.get("entityType"), row.get("entityId"), row.get("fqn"), System.currentTimeMillis());
    }
}
