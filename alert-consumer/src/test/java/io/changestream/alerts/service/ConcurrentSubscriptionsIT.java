package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * One event to several subscriptions is delivered to them concurrently (broker → alert service → a local receiver):
 * the receiver answers no request before all {@value #SUBSCRIPTIONS} subscriptions' requests have arrived, so a
 * service that delivered them one after another would get its first answer only at the receiver's give-up (past the
 * destinations' read timeout) and not one request more. Each arrives once, and each pair is delivered.
 */
class ConcurrentSubscriptionsIT {

    private static final int SUBSCRIPTIONS = 5;
    private final KafkaBroker broker = Brokers.shared();

    /** Holds every request until {@value #SUBSCRIPTIONS} have arrived; records whether each waited for all. */
    static final class GatheringReceiver implements AutoCloseable {
        private final LoopbackHttpServer server;
        private final CountDownLatch all = new CountDownLatch(SUBSCRIPTIONS);
        private final List<String> arrived = new CopyOnWriteArrayList<>();
        private final List<Boolean> gathered = new CopyOnWriteArrayList<>();

        GatheringReceiver() {
            server = LoopbackHttpServer.start(64, exchange -> {
                exchange.getRequestBody().readAllBytes();
                arrived.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
                all.countDown();
                boolean together;
                try {
                    together = all.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    together = false;
                }
                gathered.add(together);
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
        }

        String url(String path) {
            return server.url(path);
        }

        @Override
        public void close() {
            server.close();
        }
    }

    @Test
    void oneEventReachesAllItsSubscriptionsBeforeAnyOfThemAnswers() {
        String ns = AlertTestSupport.namespace("concurrent");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        try (GatheringReceiver receiver = new GatheringReceiver(); AlertService service = AlertService.start(
                AlertTestSupport.config(settings))) {
            int port = service.httpPort();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < SUBSCRIPTIONS; i++) {
                // a read timeout above the receiver's wait: one-by-one delivery would stall, not retry
                ids.add(create(port, request("sub-" + i, "[\"table\"]", "[]", "[" + webhook("Webhook",
                        receiver.url("/s" + i), null).replace("\"readTimeout\": 3", "\"readTimeout\": 25") + "]",
                        3)));
            }
            ChangeEvent event = AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                    UUID.randomUUID().toString(), "s.d.t");
            AlertTestSupport.produce(broker, catalog.changes().name(), List.of(event));

            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> receiver.gathered.size() >= SUBSCRIPTIONS);
            assertEquals(SUBSCRIPTIONS, receiver.arrived.size(), "each subscription's request arrived once: "
                    + receiver.arrived);
            assertTrue(receiver.gathered.stream().allMatch(b -> b), "every request arrived before any was answered "
                    + "(the deliveries of one event run at once): " + receiver.gathered);
            assertEquals(ids.stream().map(id -> id + ":" + event.id()).sorted().toList(),
                    receiver.arrived.stream().sorted().toList());
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id ->
                    AlertTestSupport.call(port, "GET", "/api/v1/events/subscriptions/" + id + "/summary", null)
                            .json().path("deliveredEvents").asLong() >= 1));
        }
    }
}
