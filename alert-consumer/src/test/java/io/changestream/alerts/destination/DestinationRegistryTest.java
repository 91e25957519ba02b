package io.changestream.alerts.destination;

import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.junit.jupiter.api.Test;

class DestinationRegistryTest {

    @Test
    void deliversByTypeCountsOutcomesAndNeverExposesSecretsInMetrics() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DestinationSettings settings = new DestinationSettings(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                MessageSettings.DEFAULTS, CircuitBreakerSettings.DEFAULTS, null,
                io.changestream.alerts.destination.lineage.LineageSettings.DEFAULTS);
        try (LocalReceiver receiver = new LocalReceiver();
             DestinationRegistry registry = new DestinationRegistry(settings, Clock.systemUTC(), meters, null)) {
            SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/h") + "\",\"secretKey\":\"topsecret\"}");
            receiver.then(500);
            DeliveryRequest request = DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
            assertEquals(Kind.RETRY, registry.deliver(request).outcome());
            assertEquals(Kind.DELIVERED, registry.deliver(request).outcome());

            String scrape = meters.scrape();
            assertEquals(1.0, meters.get("changestream.alert.deliveries").tag("type", "WEBHOOK")
                    .tag("outcome", "RETRY").counter().count());
            assertEquals(2L, meters.get("changestream.alert.delivery").timer().count());
            assertFalse(scrape.contains("topsecret"));
            assertFalse(scrape.contains(receiver.uri("/h").toString()));

            SubscriptionDestination email = Fixtures.destination("m", SubscriptionType.EMAIL, "{}");
            assertEquals(Kind.PERMANENT, registry.deliver(DeliveryRequest.of(Fixtures.subscription(email), email,
                    Fixtures.event(), 1)).outcome(), "no SMTP configured");
        }
    }

    @Test
    void lineageBatchesStayBatchedThroughTheBreaker() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DestinationSettings settings = new DestinationSettings(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                MessageSettings.DEFAULTS, CircuitBreakerSettings.DEFAULTS, null,
                io.changestream.alerts.destination.lineage.LineageSettings.DEFAULTS);
        try (LocalReceiver receiver = new LocalReceiver();
             DestinationRegistry registry = new DestinationRegistry(settings, Clock.systemUTC(), meters, null)) {
            SubscriptionDestination d = Fixtures.destination("ol", SubscriptionType.OPEN_LINEAGE,
                    "{\"endpoint\":\"" + receiver.uri("/api/v1/lineage") + "\",\"batchEndpoint\":\""
                            + receiver.uri("/api/v1/lineage/batch") + "\"}");
            java.util.List<DeliveryRequest> batch = java.util.stream.IntStream.range(0, 3)
                    .mapToObj(i -> DeliveryRequest.ofRun(Fixtures.subscription(d), d,
                            new io.changestream.topics.model.PipelineRunStatus("svc.p", "run-" + i,
                                    io.changestream.topics.model.PipelineState.FAILED, 1L, 2L, 3L), 1))
                    .toList();
            assertEquals(3, registry.deliverAll(batch).stream().filter(DeliveryResult::isDelivered).count());
            assertEquals(1, receiver.received().size(), "one batch request");
            assertEquals("/api/v1/lineage/batch", receiver.received().get(0).path());
            assertEquals(3.0, meters.get("changestream.alert.deliveries").tag("type", "OPEN_LINEAGE")
                    .tag("outcome", "DELIVERED").counter().count());
        }
    }

    @Test
    void validatesConfigsAtSaveTimeWithTheSsrfGuard() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (DestinationRegistry registry = new DestinationRegistry(DestinationSettings.DEFAULTS, Clock.systemUTC(),
                meters, null)) {
            DestinationConfigException local = assertThrows(DestinationConfigException.class, () -> registry.validate(
                    Fixtures.destination("d", SubscriptionType.SLACK, "{\"endpoint\":\"http://127.0.0.1:9/x\"}")));
            assertEquals("config.endpoint", local.field());
            assertEquals("config.endpoint", assertThrows(DestinationConfigException.class, () -> registry.validate(
                    Fixtures.destination("d", SubscriptionType.WEBHOOK, "{\"endpoint\":\"nope\"}"))).field());
            assertEquals("type", assertThrows(DestinationConfigException.class, () -> registry.validate(
                    Fixtures.destination("d", SubscriptionType.ACTIVITY_FEED, "{}"))).field());
            assertDoesNotThrow(() -> registry.validate(Fixtures.destination("d", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"https://8.8.8.8/hook\"}")));
        }
    }
}
