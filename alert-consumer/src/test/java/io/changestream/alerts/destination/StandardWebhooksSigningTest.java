package io.changestream.alerts.destination;

import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Standard Webhooks signing, verified by the official Java library ({@code com.standardwebhooks:standardwebhooks},
 * whose verifier checks the timestamp against the wall clock with a 5-minute tolerance).
 */
class StandardWebhooksSigningTest {

    private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(
            "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));

    private final LocalReceiver receiver = new LocalReceiver();
    private final TestClock clock = TestClock.frozenAt(Instant.now());
    private final WebhookDestination webhook = new WebhookDestination(
            new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(), clock), clock);

    @AfterEach
    void stop() {
        receiver.close();
    }

    private DeliveryRequest request(String scheme, String secret) {
        SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                "{\"endpoint\":\"" + receiver.uri("/hook") + "\",\"secretKey\":\"" + secret + "\""
                        + (scheme == null ? "" : ",\"signatureScheme\":\"" + scheme + "\"") + "}");
        return DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
    }

    private static HttpHeaders headers(LocalReceiver.Received got) {
        return HttpHeaders.of(got.headers(), (name, value) -> true);
    }

    private static String body(LocalReceiver.Received got) {
        return new String(got.body(), StandardCharsets.UTF_8);
    }

    @Test
    void theOfficialLibraryVerifiesAStandardSignature() {
        assertEquals(Kind.DELIVERED, webhook.deliver(request("standard", SECRET)).outcome());

        LocalReceiver.Received got = receiver.received().get(0);
        assertDoesNotThrow(() -> new Webhook(SECRET).verify(body(got), headers(got)));
        assertTrue(got.header("webhook-signature").startsWith("v1,"), got.header("webhook-signature"));
        assertEquals(Long.toString(clock.instant().getEpochSecond()), got.header("webhook-timestamp"));
        assertFalse(got.header("webhook-id").contains("."), "the id is part of the dot-delimited signed content");
        assertNull(got.header("X-OM-Signature"), "standard only");
        assertNotNull(got.header("Idempotency-Key"));
    }

    @Test
    void aTamperedBodyOrAnotherSecretFailsVerification() {
        webhook.deliver(request("standard", SECRET));
        LocalReceiver.Received got = receiver.received().get(0);
        String other = "whsec_" + Base64.getEncoder().encodeToString(new byte[32]);

        assertThrows(WebhookVerificationException.class,
                () -> new Webhook(SECRET).verify(body(got).replace("alice", "mallory"), headers(got)));
        assertThrows(WebhookVerificationException.class, () -> new Webhook(other).verify(body(got), headers(got)));
    }

    @Test
    void aReplayedRequestOlderThanTheToleranceFailsVerification() {
        // the request was captured when it was sent six minutes ago; the library's tolerance is five minutes
        clock.advance(Duration.ofMinutes(-6));
        webhook.deliver(request("standard", SECRET));
        LocalReceiver.Received captured = receiver.received().get(0);

        WebhookVerificationException replay = assertThrows(WebhookVerificationException.class,
                () -> new Webhook(SECRET).verify(body(captured), headers(captured)));
        assertTrue(replay.getMessage().contains("too old"), replay.getMessage());
    }

    @Test
    void aRetryKeepsTheMessageIdAndIsSignedAtItsOwnTime() {
        receiver.then(503);
        assertEquals(Kind.RETRY, webhook.deliver(request("standard", SECRET)).outcome());
        clock.advance(Duration.ofSeconds(30));
        assertEquals(Kind.DELIVERED, webhook.deliver(request("standard", SECRET)).outcome());

        LocalReceiver.Received first = receiver.received().get(0);
        LocalReceiver.Received retry = receiver.received().get(1);
        assertEquals(first.header("webhook-id"), retry.header("webhook-id"));
        assertEquals(Long.parseLong(first.header("webhook-timestamp")) + 30,
                Long.parseLong(retry.header("webhook-timestamp")));
        assertNotEquals(first.header("webhook-signature"), retry.header("webhook-signature"));
        assertDoesNotThrow(() -> new Webhook(SECRET).verify(body(retry), headers(retry)));
    }

    @Test
    void bothSendsThePlatformSignatureToo() {
        webhook.deliver(request("both", SECRET));
        LocalReceiver.Received got = receiver.received().get(0);

        assertEquals("sha256=" + WebhookDestination.hmacSha256Hex(SECRET, got.body()), got.header("X-OM-Signature"));
        assertDoesNotThrow(() -> new Webhook(SECRET).verify(body(got), headers(got)));
    }

    @Test
    void theDefaultIsThePlatformSchemeOnly() {
        webhook.deliver(request(null, "plain-secret"));
        LocalReceiver.Received got = receiver.received().get(0);

        assertNotNull(got.header("X-OM-Signature"));
        assertNull(got.header("webhook-signature"));
        assertNull(got.header("webhook-id"));
    }

    @Test
    void theStandardSchemeRefusesSecretsThatAreNotWhsecAtSaveAndAtDelivery() {
        Map<String, String> refused = new TreeMap<>(Map.of(
                "plain-secret", "whsec_",
                "whsec_not*base64", "base64",
                "whsec_" + Base64.getEncoder().encodeToString(new byte[16]), "24..64 bytes"));
        try (DestinationRegistry registry = new DestinationRegistry(new DestinationSettings(
                HttpSettings.DEFAULTS.allowingPrivateAddresses(), MessageSettings.DEFAULTS,
                CircuitBreakerSettings.DEFAULTS, null, io.changestream.alerts.destination.lineage.LineageSettings
                .DEFAULTS), clock, new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), null)) {
            refused.forEach((secret, why) -> {
                DestinationConfigException e = assertThrows(DestinationConfigException.class,
                        () -> registry.validate(request("standard", secret).destination()));
                assertEquals("config.secretKey", e.field());
                assertTrue(e.getMessage().contains(why), e.getMessage());
                assertFalse(e.getMessage().contains(secret), "the secret is not shown");
            });
            DestinationConfigException scheme = assertThrows(DestinationConfigException.class,
                    () -> registry.validate(request("hmac", SECRET).destination()));
            assertEquals("config.signatureScheme", scheme.field());
        }
        DeliveryResult atDelivery = webhook.deliver(request("both", "plain-secret"));
        assertEquals(Kind.PERMANENT, atDelivery.outcome());
        assertEquals(List.of(), receiver.received());
    }
}
