package io.changestream.alerts.destination.http;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.net.URI;
import java.time.Clock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class AddressGuardTest {

    private final AddressGuard guard = new AddressGuard(false);

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1/x", "http://10.1.2.3/x", "http://169.254.169.254/latest/meta-data",
            "http://[::1]:8080/x", "http://172.16.0.1/", "http://192.168.1.1/", "http://[fc00::1]/",
            "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://224.0.0.1/", "http://100.64.0.1/",
            "http://localhost/x", "http://[fe80::1]/",
            // issue 12: IPv4-compatible, NAT64, 6to4 embedding private IPv4, and RFC 6890 special-purpose blocks
            "http://[::127.0.0.1]/", "http://[::10.0.0.1]/", "http://[::8.8.8.8]/", "http://[64:ff9b::7f00:1]/",
            "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b:1::808:808]/", "http://[2002:7f00:1::1]/",
            "http://[2002:a9fe:a9fe::]/", "http://[2002:c0a8:101::1]/", "http://192.0.0.1/", "http://192.0.0.170/",
            "http://198.18.0.1/", "http://198.19.255.254/", "http://192.0.2.1/", "http://198.51.100.7/",
            "http://203.0.113.9/", "http://192.88.99.1/", "http://240.0.0.1/", "http://255.255.255.255/",
            "http://[100::1]/", "http://[2001::1]/", "http://[2001:db8::1]/", "http://[2001:10::1]/",
            "http://[3fff::1]/", "http://[5f00::1]/", "http://[fec0::1]/", "http://[ff02::1]/", "http://[::]/"})
    void refusesLocalAndPrivateTargetsByDefault(String url) {
        DestinationConfigException e = assertThrows(DestinationConfigException.class,
                () -> guard.check(URI.create(url), "config.endpoint"));
        assertEquals("config.endpoint", e.field());
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://8.8.8.8/hook", "https://[2606:4700:4700::1111]/hook",
            "https://[64:ff9b::808:808]/hook", "https://[2002:808:808::1]/hook", "https://198.20.0.1/",
            "https://192.0.1.1/", "https://[2001:200::1]/"})
    void acceptsPublicAddressesIncludingOnesThatEmbedAPublicIpv4(String url) {
        assertDoesNotThrow(() -> guard.check(URI.create(url), "config.endpoint"));
    }

    @Test
    void theRefusalNamesTheAddressButNeverThePathOrQuery() {
        DestinationConfigException e = assertThrows(DestinationConfigException.class, () -> guard.check(
                URI.create("http://[64:ff9b::a9fe:a9fe]/services/T000/B000/s3cr3tT0ken?token=x"), "config.endpoint"));
        assertTrue(e.getMessage().contains("64:ff9b"), e.getMessage());
        assertTrue(!e.getMessage().contains("s3cr3t") && !e.getMessage().contains("token=x"), e.getMessage());
    }

    @Test
    void acceptsPublicAddressesAndPrivateOnesWhenAllowed() {
        assertDoesNotThrow(() -> guard.check(URI.create("https://8.8.8.8/hook"), "config.endpoint"));
        assertDoesNotThrow(() -> new AddressGuard(true).check(URI.create("http://127.0.0.1/x"), "config.endpoint"));
    }

    @Test
    void refusesOtherSchemes() {
        assertThrows(DestinationConfigException.class,
                () -> new AddressGuard(true).check(URI.create("file:///etc/passwd"), "config.endpoint"));
        assertThrows(DestinationConfigException.class,
                () -> new AddressGuard(true).check(URI.create("gopher://127.0.0.1/"), "config.endpoint"));
    }

    @Test
    void theSenderNeverReachesARefusedLocalReceiver() {
        try (LocalReceiver receiver = new LocalReceiver()) {
            WebhookDestination webhook = new WebhookDestination(new HttpSender(HttpSettings.DEFAULTS,
                    Clock.systemUTC()));
            SubscriptionDestination d = Fixtures.destination("d1", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/hook") + "\"}");
            DeliveryResult result = webhook.deliver(DeliveryRequest.of(Fixtures.subscription(d), d,
                    Fixtures.event(), 1));
            assertEquals(Kind.PERMANENT, result.outcome());
            assertTrue(result.reason().contains("refused"), result.reason());
            assertEquals(0, receiver.received().size());
        }
    }
}
