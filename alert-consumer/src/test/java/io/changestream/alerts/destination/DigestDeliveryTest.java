package io.changestream.alerts.destination;

import io.changestream.alerts.destination.email.SmtpSettings;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.limits.CircuitBreakerSettings;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.alerts.destination.lineage.LineageSettings;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Issue 13: one digest in each destination's format, to real local receivers and GreenMail. */
class DigestDeliveryTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP)
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@cs.test", "alerts", "right"));

    private static DigestMessage digest(EventSubscription sub) {
        List<ChangeEvent> listed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ChangeEvent e = Fixtures.event();
            listed.add(new ChangeEvent("e" + i, e.eventType(), e.entityType(), e.entityId(), null,
                    "svc.db.sales.t" + i, null, null, "alice", null, e.timestamp(), e.changeDescription(), null,
                    null, null));
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts.put("table entityUpdated", 40);
        counts.put("table entityCreated", 2);
        return new DigestMessage(sub, "digest-1", "digest", "entityType=table", Instant.parse("2026-01-01T00:00:00Z"),
                Instant.parse("2026-01-02T00:00:00Z"), 42, counts, listed);
    }

    private static DestinationRegistry registry() {
        SmtpSettings smtp = new SmtpSettings("127.0.0.1", SMTP.getSmtp().getPort(), "alerts", "right", false,
                "alerts@cs.test", Duration.ofSeconds(2), Duration.ofSeconds(2));
        return new DestinationRegistry(new DestinationSettings(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                MessageSettings.DEFAULTS, CircuitBreakerSettings.DEFAULTS, smtp, LineageSettings.DEFAULTS),
                Clock.systemUTC(), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), null);
    }

    @Test
    void aWebhookGetsAJsonArrayOfTheListedEventsWithTheCountsInHeaders() throws Exception {
        try (LocalReceiver receiver = new LocalReceiver(); DestinationRegistry registry = registry()) {
            SubscriptionDestination d = Fixtures.destination("w", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/hook") + "\",\"secretKey\":\"s3cret\"}");
            DigestMessage m = digest(Fixtures.subscription(d));
            assertEquals(Kind.DELIVERED, registry.digests().deliver(m, d).outcome());
            LocalReceiver.Received got = receiver.received().get(0);
            JsonNode body = io.changestream.topics.serde.Json.mapper().readTree(got.body());
            assertTrue(body.isArray());
            assertEquals(3, body.size());
            assertEquals("e0", body.get(0).get("id").asText());
            assertEquals(Fixtures.SUBSCRIPTION_ID, body.get(0).get("subscriptionId").asText());
            assertEquals("42", got.header(DigestDelivery.TOTAL_HEADER));
            assertEquals("39", got.header(DigestDelivery.OMITTED_HEADER));
            assertEquals(Fixtures.SUBSCRIPTION_ID + ":digest-1", got.header("Idempotency-Key"));
            assertEquals("sha256=" + WebhookDestination.hmacSha256Hex("s3cret", got.body()),
                    got.header(WebhookDestination.SIGNATURE_HEADER));
        }
    }

    @Test
    void chatDestinationsGetOneMessageWithCountsAndTheListedChanges() {
        try (LocalReceiver receiver = new LocalReceiver(); DestinationRegistry registry = registry()) {
            for (SubscriptionType type : List.of(SubscriptionType.SLACK, SubscriptionType.MS_TEAMS,
                    SubscriptionType.G_CHAT)) {
                SubscriptionDestination d = Fixtures.destination(type.name(), type,
                        "{\"endpoint\":\"" + receiver.uri("/" + type.name()) + "\"}");
                assertEquals(Kind.DELIVERED, registry.digests().deliver(digest(Fixtures.subscription(d)), d)
                        .outcome(), type.name());
            }
            assertEquals(3, receiver.received().size());
            for (LocalReceiver.Received got : receiver.received()) {
                String body = new String(got.body(), StandardCharsets.UTF_8);
                assertTrue(body.contains("Digest of orders-alerts [entityType=table]: 42 changes"), body);
                assertTrue(body.contains("table entityUpdated: 40"), body);
                assertTrue(body.contains("table updated: svc.db.sales.t2"), body);
                assertTrue(body.contains("and 39 more"), body);
            }
        }
    }

    @Test
    void eMailGetsOneHtmlSummary() throws Exception {
        try (DestinationRegistry registry = registry()) {
            SubscriptionDestination d = Fixtures.destination("m", SubscriptionType.EMAIL,
                    "{\"receivers\":[\"ann@cs.test\"]}");
            assertEquals(Kind.DELIVERED, registry.digests().deliver(digest(Fixtures.subscription(d)), d)
                    .outcome());
            MimeMessage[] got = SMTP.getReceivedMessages();
            assertEquals(1, got.length);
            assertEquals("[orders-alerts] Digest of orders-alerts [entityType=table]: 42 changes", got[0].getSubject());
            String raw = GreenMailUtil.getWholeMessage(got[0]);
            assertTrue(raw.contains("text/html"), raw);
            assertTrue(raw.contains("<td align=3D\"right\">40</td>") || raw.contains("<td align=\"right\">40</td>"),
                    raw);
            assertEquals(Fixtures.SUBSCRIPTION_ID + ":digest-1", got[0].getHeader("Idempotency-Key")[0]);
        }
    }

    @Test
    void openLineageTakesNoDigests() {
        assertTrue(!DigestDelivery.takesDigests(SubscriptionType.OPEN_LINEAGE));
        assertTrue(DigestDelivery.takesDigests(SubscriptionType.G_CHAT));
    }
}
