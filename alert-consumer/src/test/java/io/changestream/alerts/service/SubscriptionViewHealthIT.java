package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, end to end: when the subscription view cannot be kept current (here its topic is deleted under the
 * running service), readiness goes false, events are held back instead of being matched against the frozen view,
 * and once the reader cannot be restarted {@code /health/live} fails.
 */
class SubscriptionViewHealthIT {

    private static final KafkaBroker BROKER = Brokers.shared();

    @Test
    void aViewThatCannotBeKeptCurrentPausesProcessingAndFailsReadinessThenLiveness() throws Exception {
        String namespace = AlertTestSupport.namespace("view-health");
        TopicCatalog catalog = AlertTestSupport.catalog(namespace, 1);
        AlertTestSupport.provision(BROKER, catalog);
        Map<String, String> settings = AlertTestSupport.settings(BROKER, namespace, "view-" + UUID.randomUUID());
        settings.put("subscriptions.staleAfter", "PT1S");
        settings.put("subscriptions.maxStaleness", "PT2S");
        settings.put("subscriptions.restartBackoff", "PT0.1S");
        settings.put("subscriptions.maxRestarts", "1");
        // held-back events are not drained at close: do not wait long for them (they replay from the commit)
        settings.put("runtime.revokeTimeout", "PT2S");
        settings.put("runtime.closeTimeout", "PT3S");
        try (Receiver receiver = new Receiver(); AlertService service = AlertService.start(
                AlertTestSupport.config(settings))) {
            int port = service.httpPort();
            create(port, request("view-health", "[\"table\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/hook"), null) + "]", 3));
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> service.ready());
            String entity = UUID.randomUUID().toString();
            AlertTestSupport.produce(BROKER, catalog.changes().name(),
                    List.of(AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", entity, "s.d.t1")));
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.hits("/hook").size() == 1);

            try (Admin admin = BROKER.admin()) {
                admin.deleteTopics(List.of(catalog.subscriptions().name())).all().get();
            }
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> call(port, "GET", "/health/ready", null, null).status() == 503);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> service.store().viewAge()
                    .compareTo(Duration.ofSeconds(2)) > 0);
            AlertTestSupport.produce(BROKER, catalog.changes().name(),
                    List.of(AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table", entity, "s.d.t1")));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> call(port, "GET", "/metrics", null, null)
                    .body().lines().anyMatch(l -> l.startsWith("changestream_subscriptions_paused_events_total")
                            && !l.endsWith(" 0.0")));
            assertEquals(1, receiver.hits("/hook").size(), "nothing delivered from a stale view");

            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> call(port, "GET", "/health/live", null, null).status() == 503);
            assertTrue(call(port, "GET", "/health/live", null, null).body().contains("given up"));
            assertEquals(1, receiver.hits("/hook").size());
        }
    }

    /** Issue 21: the {@code /status} view's reader is supervised too, and one that cannot be restarted fails liveness. */
    @Test
    void aStatusViewReaderThatCannotBeRestartedFailsLiveness() throws Exception {
        String namespace = AlertTestSupport.namespace("status-health");
        TopicCatalog catalog = AlertTestSupport.catalog(namespace, 1);
        AlertTestSupport.provision(BROKER, catalog);
        Map<String, String> settings = AlertTestSupport.settings(BROKER, namespace, "status-" + UUID.randomUUID());
        settings.put("status.restartBackoff", "PT0.1S");
        settings.put("status.restartMaxBackoff", "PT0.2S");
        settings.put("status.maxRestarts", "1");
        settings.put("kafka.default.api.timeout.ms", "3000"); // the view's end-offset read times out in 3 s
        settings.put("kafka.request.timeout.ms", "2500"); // clients want it below the API timeout
        try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
            int port = service.httpPort();
            String id = create(port, request("status-health", "[\"table\"]", "[]",
                    "[" + webhook("Webhook", "https://hooks.example.com/s", null) + "]", 3));
            assertEquals(200, call(port, "GET", "/health/live", null, null).status());
            try (Admin admin = BROKER.admin()) {
                admin.deleteTopics(List.of(catalog.alertDlq().name())).all().get();
            }
            assertEquals(200, call(port, "GET", "/api/v1/events/subscriptions/" + id + "/status", null).status(),
                    "the answer stays, current=false");
            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> call(port, "GET", "/health/live", null, null).status() == 503);
            String body = call(port, "GET", "/health/live", null, null).body();
            assertTrue(body.contains("status view reader") && body.contains("given up"), body);
        }
    }
}
