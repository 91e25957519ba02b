package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The platform's status endpoints of a subscription on its paths and in its shapes (issue 26), answered by a real
 * alert service from a real broker: diagnostics at a lag of 100,000 events within a bound (measured: the figures
 * are printed), the events record, the sent and failed lists with their paging, the test-destination call through
 * the real delivery path (signed, to a real local receiver) that writes nothing to the ledger or the DLQ, and 4xx
 * naming the parameter for bad input.
 */
class StatusEndpointsIT {

    private static final String BASE = "/api/v1/events/subscriptions";
    private static final int LAG = 100_000;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void diagnosticInfoAnswersWithinItsBoundAtALagOf100000() {
        String ns = AlertTestSupport.namespace("diag");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 2);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        // the receiver holds every request while we measure, and the destination waits for it (no shedding to the
        // retry path within the minute): the group's committed offsets stay where they are, the lag at 100,000
        settings.put("delivery.stallTimeout", "PT60S");
        settings.put("delivery.maxQueueWait", "PT60S");
        try (Receiver receiver = new Receiver()) {
            receiver.hold("/tables");
            String id;
            try (AlertService first = AlertService.start(AlertTestSupport.config(settings))) {
                id = AlertTestSupport.create(first.httpPort(), AlertTestSupport.request("tables", "[\"table\"]", "[]",
                        "[" + AlertTestSupport.webhook("Webhook", receiver.url("/tables"), null)
                                .replace("\"readTimeout\": 3", "\"readTimeout\": 25") + "]", 0));
            }
            // half the backlog is tables (the subscription's filter), half dashboards
            List<ChangeEvent> backlog = IntStream.range(0, LAG).mapToObj(i -> AlertTestSupport.event(
                    ChangeEvent.ENTITY_UPDATED, i % 2 == 0 ? "table" : "dashboard", UUID.randomUUID().toString(),
                    "s.d.e" + i)).toList();
            AlertTestSupport.produce(broker, catalog.changes().name(), backlog);
            try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
                int port = service.httpPort();
                String path = BASE + "/id/" + id + "/diagnosticInfo?limit=5";
                for (int i = 0; i < 3; i++) { // warm-up: connections, the reader's first fetches
                    AlertTestSupport.call(port, "GET", path, null);
                }
                long[] millis = new long[10];
                List<String> server = new ArrayList<>();
                JsonNode last = null;
                for (int i = 0; i < millis.length; i++) {
                    long start = System.nanoTime();
                    AlertTestSupport.Answer a = AlertTestSupport.call(port, "GET", path, null);
                    millis[i] = (System.nanoTime() - start) / 1_000_000;
                    assertEquals(200, a.status(), a.body());
                    last = a.json();
                    server.add(last.path("changestream").path("offsetsMillis").asText() + "+"
                            + last.path("changestream").path("scanMillis").asText());
                    assertTrue(last.path("totalUnprocessedEventsCount").asLong() >= LAG * 9 / 10, "measured at a "
                            + "lag of about " + LAG + ": " + last.path("totalUnprocessedEventsCount"));
                }
                long[] sorted = millis.clone();
                Arrays.sort(sorted);
                System.out.println("DIAGNOSTICS at lag " + LAG + ": median " + sorted[sorted.length / 2]
                        + " ms, max " + sorted[sorted.length - 1] + " ms, all " + Arrays.toString(millis)
                        + "; in the service (offsets + sample, ms): " + server + "; load average "
                        + java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
                assertTrue(sorted[sorted.length / 2] < 3_000, "diagnosticInfo's median answer at a lag of " + LAG
                        + " (a generous bound on this shared machine; the target is 200 ms): "
                        + Arrays.toString(millis));

                assertEquals(LAG, last.path("latestOffset").asLong());
                assertEquals(0, last.path("startingOffset").asLong());
                assertFalse(last.path("hasProcessedAllEvents").asBoolean());
                long total = last.path("totalUnprocessedEventsCount").asLong();
                long relevant = last.path("relevantUnprocessedEventsCount").asLong();
                assertEquals(LAG - last.path("currentOffset").asLong(), total, "lag = latest - current");
                assertTrue(Math.abs(relevant - total / 2) <= total / 5, "about half the lag is tables: " + relevant
                        + " of " + total + " (" + last.path("changestream") + ")");
                assertTrue(last.path("changestream").path("estimated").asBoolean(), last.toString());
                assertEquals(5, last.path("totalUnprocessedEventsList").size());
                assertTrue(StreamSupport.stream(last.path("relevantUnprocessedEventsList").spliterator(), false)
                        .allMatch(e -> e.path("entityType").asText().equals("table")), "relevant = matched");
                AlertTestSupport.Answer countOnly = AlertTestSupport.call(port, "GET", BASE + "/name/tables/"
                        + "diagnosticInfo?listCountOnly=true", null);
                assertEquals(200, countOnly.status(), countOnly.body());
                assertFalse(countOnly.json().has("totalUnprocessedEventsList"), countOnly.body());
            }
        }
    }

    @Test
    void sentAndFailedListsEventsRecordAndTestDestinationAnswerLikeThePlatform() throws Exception {
        String ns = AlertTestSupport.namespace("status-api");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        String group = ns + "group";
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, group);
        settings.put("diagnostics.dlqDepthInterval", "PT1S");
        try (Receiver receiver = new Receiver().always("/refuses", 400).always("/test-refuses", 400);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()));
             AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
            int port = service.httpPort();
            String ok = AlertTestSupport.create(port, AlertTestSupport.request("ok", "[\"table\"]", "[]",
                    "[" + AlertTestSupport.webhook("Webhook", receiver.url("/ok"), null) + "]", 0));
            String bad = AlertTestSupport.create(port, AlertTestSupport.request("bad", "[\"table\"]", "[]",
                    "[" + AlertTestSupport.webhook("Webhook", receiver.url("/refuses"), null) + "]", 0));
            List<ChangeEvent> events = IntStream.range(0, 5).mapToObj(i -> AlertTestSupport.event(
                    ChangeEvent.ENTITY_UPDATED, "table", UUID.randomUUID().toString(), "s.d.t" + i)).toList();
            AlertTestSupport.produce(broker, catalog.changes().name(), events);
            Set<String> ids = events.stream().map(ChangeEvent::id).collect(Collectors.toSet());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                JsonNode d = get(port, BASE + "/id/" + ok + "/diagnosticInfo");
                return receiver.hits("/ok").size() == 5 && d.path("hasProcessedAllEvents").asBoolean()
                        && get(port, BASE + "/id/" + bad + "/failedEvents").size() == 5;
            });

            // the meters a user scrapes (issue 26 item 4): the DLQ depth (records held in alert-dlq, group-wide) and
            // processing time by the platform's event type
            String depth = "changestream_alert_dlq_depth{topic=\"" + catalog.alertDlq().name() + "\"} 5.0";
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> AlertTestSupport.call(port, "GET",
                    "/metrics", null, null).body().contains(depth));
            String metrics = AlertTestSupport.call(port, "GET", "/metrics", null, null).body();
            assertTrue(metrics.contains("# HELP changestream_alert_dlq_depth Records held in the alert DLQ topic"),
                    metrics);
            assertTrue(metrics.contains("changestream_alert_processing_seconds_count{event_type=\"entityUpdated\"} "
                    + "5"), "5 entityUpdated events, each one attempt");
            assertTrue(metrics.contains("changestream_alert_processing_seconds_count{event_type=\"entityCreated\"} "
                    + "0"), "every platform event type is there from the start, at 0");
            assertTrue(metrics.contains("changestream_alert_processing_seconds_bucket{event_type=\"entityUpdated\","
                    + "le=\"60.0\"} 5"), "a histogram with fixed buckets");
            assertTrue(metrics.contains("changestream_runtime_lane_queue_deepest{group=\"" + group + "\"} 0.0"),
                    "the deepest lane, drained");
            assertTrue(metrics.contains("changestream_runtime_buffer_usage_ratio{buffer=\"bytes\",group=\"" + group
                    + "\"} 0.0"), "nothing buffered once every event is done");
            AlertEndToEndIT.assertPromtoolAccepts(metrics);

            // sent: the events as the platform lists them, paged
            List<JsonNode> sent = new ArrayList<>();
            get(port, BASE + "/id/" + ok + "/listSuccessfullySentChangeEvents?limit=3").forEach(sent::add);
            assertEquals(3, sent.size());
            get(port, BASE + "/id/" + ok + "/listSuccessfullySentChangeEvents?limit=3&paginationOffset=3")
                    .forEach(sent::add);
            assertEquals(ids, sent.stream().map(e -> e.path("id").asText()).collect(Collectors.toSet()),
                    "both pages together: every delivered event once");
            assertEquals(0, get(port, BASE + "/id/" + bad + "/listSuccessfullySentChangeEvents").size());

            // failed: FailedEventResponse from alert-dlq
            JsonNode failed = get(port, BASE + "/id/" + bad + "/failedEvents");
            for (JsonNode f : failed) {
                assertEquals(bad, f.path("failingSubscriptionId").asText());
                assertEquals("SUBSCRIBER", f.path("source").asText());
                assertTrue(ids.contains(f.path("changeEvent").path("id").asText()), f.toString());
                assertTrue(f.path("reason").asText().contains("400"), f.toString());
                assertTrue(f.path("timestamp").asLong() > 0);
            }
            assertEquals(2, get(port, BASE + "/name/bad/failedEvents?limit=2").size());
            assertEquals(0, get(port, BASE + "/id/" + bad + "/failedEvents?source=PUBLISHER").size());
            assertEquals(0, get(port, BASE + "/id/" + ok + "/failedEvents").size());
            assertEquals(5, get(port, BASE + "/listAllFailedEvents").size());

            // the events record
            JsonNode record = get(port, BASE + "/id/" + ok + "/eventsRecord");
            assertEquals(5, record.path("successfulEventsCount").asLong(), record.toString());
            assertEquals(0, record.path("failedEventsCount").asLong());
            assertEquals(0, record.path("pendingEventsCount").asLong());
            assertEquals(5, record.path("totalEventsCount").asLong());
            JsonNode badRecord = get(port, BASE + "/name/bad/eventsRecord");
            assertEquals(5, badRecord.path("failedEventsCount").asLong(), badRecord.toString());
            assertEquals(0, badRecord.path("successfulEventsCount").asLong());

            // the test call: the real delivery path, signed, and nothing written to the ledger or the DLQ
            Map<TopicPartition, Long> before = ends(admin, catalog);
            AlertTestSupport.Answer test = AlertTestSupport.call(port, "POST", BASE + "/testDestination",
                    "{\"destinations\": [" + AlertTestSupport.webhook("Webhook", receiver.url("/test"), "s3cr3t-key")
                            + ", " + AlertTestSupport.webhook("Webhook", receiver.url("/test-refuses"), null) + "]}");
            assertEquals(200, test.status(), test.body());
            assertFalse(test.body().contains("s3cr3t-key"), "the secret is masked: " + test.body());
            assertEquals("Success", test.json().get(0).path("statusDetails").path("status").asText(), test.body());
            assertEquals("Failed", test.json().get(1).path("statusDetails").path("status").asText(), test.body());
            assertTrue(test.json().get(1).path("statusDetails").path("reason").asText().contains("400"),
                    test.body());
            assertEquals(1, receiver.hits("/test").size());
            Receiver.Hit hit = receiver.hits("/test").get(0);
            assertTrue(hit.signature() != null && hit.signature().startsWith("sha256="), "signed: " + hit);
            assertEquals("entityUpdated", hit.body().path("eventType").asText(), hit.raw());
            assertEquals(before, ends(admin, catalog), "the test wrote nothing to alert-ledger or alert-dlq");

            // bad input: 4xx naming the parameter
            Map<String, String> refused = Map.of(
                    BASE + "/id/" + ok + "/diagnosticInfo?limit=-1", "limit:",
                    BASE + "/id/" + ok + "/diagnosticInfo?limit=x", "limit:",
                    BASE + "/id/" + ok + "/diagnosticInfo?listCountOnly=maybe", "listCountOnly:",
                    BASE + "/id/" + ok + "/failedEvents?source=nobody", "source:",
                    BASE + "/listAllFailedEvents?paginationOffset=-3", "paginationOffset:",
                    BASE + "/id/" + ok + "/listSuccessfullySentChangeEvents?limit=100000", "limit:");
            for (Map.Entry<String, String> e : refused.entrySet()) {
                AlertTestSupport.Answer a = AlertTestSupport.call(port, "GET", e.getKey(), null);
                assertEquals(400, a.status(), e.getKey() + " -> " + a.body());
                assertTrue(a.json().path("message").asText().startsWith(e.getValue()), a.body());
            }
            assertEquals(404, AlertTestSupport.call(port, "GET", BASE + "/name/nope/diagnosticInfo", null).status());
            assertEquals(404, AlertTestSupport.call(port, "GET", BASE + "/id/" + UUID.randomUUID()
                    + "/eventsRecord", null).status());
            AlertTestSupport.Answer none = AlertTestSupport.call(port, "POST", BASE + "/testDestination",
                    "{\"destinations\": []}");
            assertEquals(400, none.status(), none.body());
            assertTrue(none.json().path("message").asText().startsWith("destinations:"), none.body());
            assertEquals(401, AlertTestSupport.call(port, "GET", BASE + "/listAllFailedEvents", null, null)
                    .status());
        }
    }

    private static JsonNode get(int port, String path) {
        AlertTestSupport.Answer a = AlertTestSupport.call(port, "GET", path, null);
        assertEquals(200, a.status(), path + " -> " + a.body());
        return a.json();
    }

    private static Map<TopicPartition, Long> ends(Admin admin, TopicCatalog catalog) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new java.util.HashMap<>();
        for (String topic : List.of(catalog.alertLedger().name(), catalog.alertDlq().name())) {
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        }
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        admin.listOffsets(request).all().get().forEach((tp, i) -> out.put(tp, i.offset()));
        return out;
    }
}
