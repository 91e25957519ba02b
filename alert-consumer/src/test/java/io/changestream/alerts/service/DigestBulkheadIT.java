package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.HangingHttpServer;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.serde.Serdes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 item 6 on the real broker: a grouped subscription whose receiver accepts and never answers beside a
 * healthy one. The flusher sends without waiting, so the healthy group message arrives on time; the hanging one is
 * cancelled after {@code digest.sendTimeout}, retried per the subscription's {@code retries} and dead-lettered; a
 * new owner of the digest partitions sends neither again.
 */
class DigestBulkheadIT {

    private final KafkaBroker broker = Brokers.shared();

    private static String grouped(String name, String hook, String groupWait, int readTimeout) {
        return AlertTestSupport.request(name, "[\"all\"]", "[]", "[" + AlertTestSupport.webhook("Webhook", hook, null)
                        .replace("\"readTimeout\": 3", "\"readTimeout\": " + readTimeout) + "]", 1)
                .replace("\"provider\": \"user\"", "\"provider\": \"user\", \"grouping\": {\"groupBy\": "
                        + "[\"entityType\"], \"groupWait\": \"" + groupWait + "\"}");
    }

    @Test
    void aHangingDigestReceiverDelaysOnlyItsOwnMessage() {
        String ns = AlertTestSupport.namespace("digest-bulkhead");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("digest.tick", "PT0.2S");
        settings.put("digest.sendTimeout", "PT3S");
        settings.put("digest.retryBackoff", "PT1S");
        try (Receiver ok = new Receiver(); HangingHttpServer hang = new HangingHttpServer()) {
            String hanging;
            try (AlertService a = AlertService.start(AlertTestSupport.config(settings))) {
                // the hanging group is due first and its receiver would hold a blocking sender for 27 s (the longest
                // a destination may ask for: delivery.maxRequestTime 30 s); digest.sendTimeout cuts it at 3 s
                hanging = AlertTestSupport.create(a.httpPort(), grouped("hanging", hang.url("/hook"), "1s", 25));
                AlertTestSupport.create(a.httpPort(), grouped("healthy", ok.url("/ok"), "3s", 3));
                List<ChangeEvent> events = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    events.add(AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", "t-" + i, "svc.db.t" + i));
                }
                long start = System.nanoTime();
                AlertTestSupport.produce(broker, catalog.changes().name(), events);
                Awaitility.await("the healthy group message").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(100)).until(() -> !ok.hits("/ok").isEmpty());
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertTrue(hang.requests() >= 1, "the hanging receiver's message went out first");
                assertTrue(tookMs < 12_000, "the healthy message waited " + tookMs + " ms (groupWait 3 s)");
                assertEquals(events.size(), ok.hits("/ok").get(0).body().size(), "all members in it");

                // the hanging one: cancelled after digest.sendTimeout, retried once (retries 1), dead-lettered
                Awaitility.await("the hanging message dead-lettered").atMost(Duration.ofSeconds(30))
                        .until(() -> deadLetters(catalog).size() == 1);
                FailedEvent dead = deadLetters(catalog).get(0);
                assertEquals(hanging, dead.subscriptionId());
                assertTrue(dead.reason().contains("digest.sendTimeout"), dead.reason());
                assertEquals(2, hang.requests(), "one send and one retry");
                assertEquals(1, ok.hits("/ok").size(), "the healthy message once");
            }
            // a new owner of the digest partitions sends neither message again
            try (AlertService b = AlertService.start(AlertTestSupport.config(settings))) {
                Awaitility.await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10))
                        .until(() -> ok.hits("/ok").size() == 1 && hang.requests() == 2);
                assertEquals(1, deadLetters(catalog).size());
            }
        }
    }

    private List<FailedEvent> deadLetters(TopicCatalog catalog) {
        return KafkaTestClients.readAll(broker, catalog.alertDlq().name(), Duration.ofSeconds(2)).stream()
                .map(r -> Serdes.failedEvent().fromJson(r.value())).toList();
    }
}
