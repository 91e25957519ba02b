package io.changestream.alerts.destination.email;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EmailDestinationTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP)
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@cs.test", "alerts", "right"));

    private static SmtpSettings smtp(String password) {
        return new SmtpSettings("127.0.0.1", SMTP.getSmtp().getPort(), "alerts", password, false, "alerts@cs.test",
                Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    private static DeliveryRequest request(String receivers) {
        SubscriptionDestination d = Fixtures.destination("mail", SubscriptionType.EMAIL,
                "{\"receivers\":" + receivers + "}");
        return DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
    }

    @Test
    void deliversHtmlAndTextToEveryReceiverOnceTheServerAccepted() throws Exception {
        DeliveryResult result = new EmailDestination(smtp("right"), MessageSettings.DEFAULTS)
                .deliver(request("[\"ann@cs.test\",\"bob@cs.test\"]"));

        assertEquals(Kind.DELIVERED, result.outcome());
        MimeMessage[] got = SMTP.getReceivedMessages();
        assertEquals(2, got.length, "one copy per receiver");
        assertEquals("[orders-alerts] table updated: svc.db.sales.orders", got[0].getSubject());
        String raw = GreenMailUtil.getWholeMessage(got[0]);
        assertTrue(raw.contains("text/plain"), raw);
        assertTrue(raw.contains("text/html"), raw);
        assertTrue(raw.contains("Updated description"), raw);
    }

    @Test
    void aRejectedLoginIsNotDelivered() {
        DeliveryResult result = new EmailDestination(smtp("wrong"), MessageSettings.DEFAULTS)
                .deliver(request("[\"ann@cs.test\"]"));

        assertEquals(Kind.PERMANENT, result.outcome());
        assertFalse(result.reason().contains("wrong"), "no password in the reason");
        assertEquals(0, SMTP.getReceivedMessages().length);
    }

    @Test
    void anUnreachableServerIsARetry() {
        SmtpSettings nowhere = new SmtpSettings("127.0.0.1", 1, null, null, false, "alerts@cs.test",
                Duration.ofSeconds(1), Duration.ofSeconds(1));
        DeliveryResult result = new EmailDestination(nowhere, MessageSettings.DEFAULTS)
                .deliver(request("[\"ann@cs.test\"]"));
        assertEquals(Kind.RETRY, result.outcome());
    }

    @Test
    void cancellingASendToAnSmtpServerThatNeverAnswersClosesItsSocketAtOnce() throws Exception {
        try (io.changestream.testkit.HangingHttpServer silent = new io.changestream.testkit.HangingHttpServer()) {
            int port = java.net.URI.create(silent.url("/")).getPort();
            // accepts and never greets: the client waits for the 220 up to its 20 s read timeout
            SmtpSettings mute = new SmtpSettings("127.0.0.1", port, null, null, false, "alerts@cs.test",
                    Duration.ofSeconds(2), Duration.ofSeconds(20));
            java.util.concurrent.ExecutorService blocking = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                java.util.concurrent.CompletableFuture<DeliveryResult> send = new EmailDestination(mute,
                        MessageSettings.DEFAULTS).deliverAsync(request("[\"ann@cs.test\"]"), blocking)
                        .toCompletableFuture();
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                        .until(() -> silent.openConnections() == 1);
                long cancelled = System.nanoTime();
                assertTrue(send.cancel(true));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                        .until(() -> silent.openConnections() == 0);
                long tookMillis = (System.nanoTime() - cancelled) / 1_000_000;
                assertTrue(tookMillis < 5_000, "closed " + tookMillis + " ms after the cancel, not at the 20 s timeout");
                // the blocking thread is free again at once, not after the read timeout
                assertEquals("free", blocking.submit(() -> "free").get(5, java.util.concurrent.TimeUnit.SECONDS));
            } finally {
                blocking.shutdownNow();
            }
        }
    }

    @Test
    void missingOrInvalidReceiversArePermanent() {
        EmailDestination email = new EmailDestination(smtp("right"), MessageSettings.DEFAULTS);
        assertEquals(Kind.PERMANENT, email.deliver(request("[]")).outcome());
        assertEquals(Kind.PERMANENT, email.deliver(request("[\"not an address\"]")).outcome());
        assertTrue(smtp("right").toString().contains(io.changestream.settings.SecretKeys.MASK));
        assertFalse(smtp("right").toString().contains("right,"));
    }
}
