package io.changestream.alerts.destination;

import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import io.changestream.alerts.destination.limits.CircuitState;
import io.changestream.alerts.destination.limits.DeliveryConcurrency;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.changestream.testkit.HangingHttpServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A receiver that accepts a connection, reads the request and never answers — the most common real failure. Against a
 * real socket: cancelling a delivery (what a processing timeout, a partition release and shutdown do) closes the
 * connection through every layer of the delivery path (bulkhead, breaker, webhook, HTTP client); a request ends at its
 * own deadline and frees its connection; a destination asking for more than {@code delivery.maxRequestTime} is refused
 * at save time naming the field; a cancelled request counts against its destination's breaker.
 */
class HangingReceiverTest {

    private static DestinationRegistry registry(CircuitBreakerSettings breaker) {
        DestinationSettings settings = new DestinationSettings(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                MessageSettings.DEFAULTS, breaker, null,
                io.changestream.alerts.destination.lineage.LineageSettings.DEFAULTS);
        return new DestinationRegistry(settings, DeliveryConcurrency.DEFAULTS, Clock.systemUTC(),
                new SimpleMeterRegistry(), null);
    }

    private static SubscriptionDestination webhook(String url, int timeout, int readTimeout) {
        return new SubscriptionDestination("hanging", SubscriptionCategory.EXTERNAL, SubscriptionType.WEBHOOK, timeout,
                readTimeout, true, Fixtures.json("{\"endpoint\":\"" + url + "\"}"), null, null);
    }

    private static DeliveryRequest request(SubscriptionDestination d) {
        return DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
    }

    @Test
    void cancellingADeliveryOnAHangingReceiverClosesItsConnection() throws Exception {
        try (HangingHttpServer server = new HangingHttpServer();
             DestinationRegistry registry = registry(CircuitBreakerSettings.DEFAULTS)) {
            CompletableFuture<DeliveryResult> delivery = registry.deliverAsync(request(webhook(server.url("/hook"), 10, 20)));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.requests() == 1);
            assertTrue(delivery.cancel(true));
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 0);
        }
    }

    @Test
    void aRequestEndsAtItsOwnDeadlineAndClosesItsConnection() throws Exception {
        try (HangingHttpServer server = new HangingHttpServer();
             DestinationRegistry registry = registry(CircuitBreakerSettings.DEFAULTS)) {
            long started = System.nanoTime();
            DeliveryResult result = registry.deliverAsync(request(webhook(server.url("/hook"), 1, 1)))
                    .orTimeout(20, TimeUnit.SECONDS).join();
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(Kind.RETRY, result.outcome());
            assertTrue(result.unanswered(), "sent and not answered: the outcome is unknown " + result);
            assertTrue(tookMillis >= 900 && tookMillis < 10_000, "no answer for readTimeout (1 s) ends it, within "
                    + "the deadline timeout + readTimeout (2 s); took " + tookMillis + " ms");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 0);
        }
    }

    @Test
    void aStoredDestinationAskingForAnHourIsCutToMaxRequestTime() throws Exception {
        HttpSettings http = HttpSettings.DEFAULTS.allowingPrivateAddresses().withMaxRequestTime(Duration.ofSeconds(2));
        try (HangingHttpServer server = new HangingHttpServer(); HttpSender sender = new HttpSender(http, Clock.systemUTC())) {
            WebhookDestination hook = new WebhookDestination(sender);
            long started = System.nanoTime();
            DeliveryResult result = hook.deliverAsync(request(webhook(server.url("/hook"), 3_600, 3_600)), Runnable::run)
                    .toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(result.unanswered(), result.toString());
            assertTrue(tookMillis < 10_000, "cut to delivery.maxRequestTime (2 s), took " + tookMillis + " ms");
        }
    }

    @Test
    void aDestinationWhoseTimeoutsExceedMaxRequestTimeIsRefusedNamingTheField() {
        try (DestinationRegistry registry = registry(CircuitBreakerSettings.DEFAULTS)) {
            DestinationConfigException refused = assertThrows(DestinationConfigException.class,
                    () -> registry.validate(webhook("https://hooks.example.com/x", 3_600, 3_600)));
            assertEquals("timeout", refused.field(), refused.getMessage());
            refused = assertThrows(DestinationConfigException.class,
                    () -> registry.validate(webhook("https://hooks.example.com/x", 10, 25)));
            assertEquals("readTimeout", refused.field());
            assertTrue(refused.getMessage().contains("delivery.maxRequestTime"), refused.getMessage());
            registry.validate(webhook("https://hooks.example.com/x", 10, 12)); // the platform's defaults fit
        }
    }

    @Test
    void cancelledRequestsOpenTheDestinationsCircuitAndLaterOnesAreShedUnsent() throws Exception {
        CircuitBreakerSettings breaker = new CircuitBreakerSettings(2, Duration.ofMinutes(1),
                CircuitBreakerSettings.DEFAULTS.halfOpenTrials(), CircuitBreakerSettings.DEFAULTS.maxBreakers());
        try (HangingHttpServer server = new HangingHttpServer(); DestinationRegistry registry = registry(breaker)) {
            SubscriptionDestination d = webhook(server.url("/hook"), 10, 20);
            for (int i = 1; i <= 2; i++) {
                CompletableFuture<DeliveryResult> delivery = registry.deliverAsync(request(d));
                int sent = i;
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.requests() == sent);
                delivery.cancel(true);
            }
            Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> registry.circuitState(request(d)) == CircuitState.OPEN);
            DeliveryResult refused = registry.deliverAsync(request(d)).join();
            assertTrue(refused.shed() && refused.reason().contains("circuit open"), refused.toString());
            assertEquals(2, server.requests(), "nothing sent while open");
        }
    }
}
