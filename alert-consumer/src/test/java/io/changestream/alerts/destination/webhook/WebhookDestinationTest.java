package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WebhookDestinationTest {

    private final LocalReceiver receiver = new LocalReceiver();
    private final TestClock clock = TestClock.frozenAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final WebhookDestination webhook = new WebhookDestination(
            new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(), clock));

    @AfterEach
    void stop() {
        receiver.close();
    }

    private DeliveryRequest request(String extraConfig) {
        SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                "{\"endpoint\":\"" + receiver.uri("/hook") + "\"" + extraConfig + "}");
        return DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
    }

    @Test
    void postsTheEventSignedWithHeadersAndIdempotencyKey() {
        DeliveryResult result = webhook.deliver(request(
                ",\"secretKey\":\"s3cret\",\"headers\":{\"X-Team\":\"data\"},\"queryParams\":{\"src\":\"cs\"}"));

        assertEquals(Kind.DELIVERED, result.outcome());
        LocalReceiver.Received got = receiver.received().get(0);
        assertEquals("POST", got.method());
        assertEquals("/hook", got.path());
        assertEquals("src=cs", got.query());
        assertEquals("data", got.header("X-Team"));
        assertEquals(Fixtures.SUBSCRIPTION_ID + ":" + Fixtures.event().id(), got.header("Idempotency-Key"));
        assertEquals("sha256=" + WebhookDestination.hmacSha256Hex("s3cret", got.body()), got.header("X-OM-Signature"));
        JsonNode body = Fixtures.json(new String(got.body(), StandardCharsets.UTF_8));
        assertEquals(Fixtures.event().id(), body.get("id").asText());
        assertEquals("entityUpdated", body.get("eventType").asText());
        assertEquals("orders-alerts", body.get("subscriptionName").asText());
        assertEquals(Fixtures.SUBSCRIPTION_ID, body.get("subscriptionId").asText());
    }

    @Test
    void pairsOfOneEventShareItsJsonAndEachBodyIsTheEventWithItsSubscription() throws Exception {
        SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                "{\"endpoint\":\"" + receiver.uri("/hook") + "\"}");
        ChangeEvent event = Fixtures.event();
        EventSubscription first = EventSubscription.builder("sub-1",
                "orders \"alerts\" \u00e9 \\ /\n\t\u0001\u007f \uD83D\uDE00 \u2028").destinations(
                java.util.List.of(d)).build();
        EventSubscription second = EventSubscription.builder("sub-2", "second").destinations(java.util.List.of(d))
                .build();
        for (EventSubscription sub : java.util.List.of(first, second, first)) {
            byte[] body = webhook.body(DeliveryRequest.of(sub, d, event, 1));
            // what the platform sends: the event's JSON object with the subscription's id and name added
            ObjectNode expected = Json.mapper().valueToTree(event);
            expected.put("subscriptionId", sub.id());
            expected.put("subscriptionName", sub.name());
            assertEquals(expected, Json.mapper().readTree(body));
            assertEquals(Json.mapper().writeValueAsString(expected), new String(body, StandardCharsets.UTF_8));
        }
    }

    @Test
    void aConfigIsReadOnceAndAnEditedOneAfresh() {
        JsonNode config = Fixtures.json("{\"endpoint\":\"http://a.example/x\",\"httpMethod\":\"PUT\"}");
        WebhookConfig once = WebhookConfig.parse(config);
        assertSame(once, WebhookConfig.parse(config));
        WebhookConfig edited = WebhookConfig.parse(Fixtures.json("{\"endpoint\":\"http://b.example/y\"}"));
        assertEquals("http://b.example/y", edited.endpoint().toString());
        assertEquals("POST", edited.httpMethod());
        assertEquals("PUT", once.httpMethod());
    }

    @Test
    void theReasonCarriesTheAnswersBodyUpToMaxResponseBytes() {
        String big = "x".repeat(3 * HttpSettings.DEFAULTS.maxResponseBytes());
        receiver.thenBody(400, "nope").thenBody(400, big);
        assertEquals("HTTP 400: nope", webhook.deliver(request("")).reason());
        String reason = webhook.deliver(request("")).reason();
        assertEquals("HTTP 400: " + big.substring(0, HttpSettings.DEFAULTS.maxResponseBytes()), reason);
    }

    @Test
    void theSignatureIsTheHmacOfTheExactBody() {
        webhook.deliver(request(",\"secretKey\":\"k\""));
        LocalReceiver.Received got = receiver.received().get(0);
        // an independent computation of HMAC-SHA256("k", body)
        String expected = hex(hmac("k".getBytes(StandardCharsets.UTF_8), got.body()));
        assertEquals("sha256=" + expected, got.header("X-OM-Signature"));
    }

    @Test
    void withoutASecretThereIsNoSignatureButStillAnIdempotencyKey() {
        webhook.deliver(request(""));
        assertNull(receiver.received().get(0).header("X-OM-Signature"));
        assertTrue(receiver.received().get(0).header("Idempotency-Key").endsWith(Fixtures.event().id()));
    }

    @Test
    void serverErrorIsRetriedThenDeliveredOnceWithTheSameKey() {
        receiver.then(500);
        DeliveryResult first = webhook.deliver(request(""));
        DeliveryResult second = webhook.deliver(request(""));

        assertEquals(Kind.RETRY, first.outcome());
        assertTrue(first.reason().contains("500"), first.reason());
        assertEquals(Kind.DELIVERED, second.outcome());
        assertEquals(2, receiver.received().size());
        assertEquals(receiver.received().get(0).header("Idempotency-Key"),
                receiver.received().get(1).header("Idempotency-Key"));
    }

    @Test
    void clientErrorIsPermanent() {
        receiver.then(400);
        DeliveryResult result = webhook.deliver(request(""));
        assertEquals(Kind.PERMANENT, result.outcome());
        assertTrue(result.reason().startsWith("HTTP 400"), result.reason());
    }

    @Test
    void throttlingHonoursRetryAfterSecondsAndDates() {
        receiver.then(429, Map.of("Retry-After", "7"));
        assertEquals(Duration.ofSeconds(7), webhook.deliver(request("")).retryAfter());
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().plusSeconds(90).atZone(ZoneOffset.UTC));
        receiver.then(503, Map.of("Retry-After", date));
        assertEquals(Duration.ofSeconds(90), webhook.deliver(request("")).retryAfter());
        receiver.then(408);
        DeliveryResult timeout = webhook.deliver(request(""));
        assertEquals(Kind.RETRY, timeout.outcome());
        assertNull(timeout.retryAfter());
    }

    @Test
    void aSlowReceiverIsARetryAfterTheReadTimeout() {
        CountDownLatch release = new CountDownLatch(1);
        receiver.thenHold(release);
        try {
            DeliveryResult result = webhook.deliver(request(""));
            assertEquals(Kind.RETRY, result.outcome());
            assertTrue(result.reason().contains("no response within 2 s"), result.reason());
        } finally {
            release.countDown();
        }
    }

    @Test
    void aClosedPortIsARetry() {
        String endpoint = receiver.uri("/hook").toString();
        receiver.close();
        SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                "{\"endpoint\":\"" + endpoint + "\"}");
        DeliveryResult result = webhook.deliver(DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1));
        assertEquals(Kind.RETRY, result.outcome());
    }

    @Test
    void oversizedBodiesAndBadConfigArePermanent() {
        WebhookDestination tiny = new WebhookDestination(new HttpSender(
                new HttpSettings(true, 64, 1024, Duration.ofHours(1), Duration.ofSeconds(30)), Clock.systemUTC()));
        DeliveryResult big = tiny.deliver(request(""));
        assertEquals(Kind.PERMANENT, big.outcome());
        assertTrue(big.reason().contains("http.maxRequestBytes"), big.reason());

        SubscriptionDestination noEndpoint = Fixtures.destination("d2", SubscriptionType.WEBHOOK, "{}");
        assertEquals(Kind.PERMANENT, webhook.deliver(DeliveryRequest.of(Fixtures.subscription(noEndpoint),
                noEndpoint, Fixtures.event(), 1)).outcome());
        assertEquals(0, receiver.received().size());
    }

    private static byte[] hmac(byte[] key, byte[] body) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b));
        }
        return out.toString();
    }
}
