package io.changestream.alerts.destination;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Outcome;
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
            "http://localhost/x", "http://[fe80::1]/"})
    void refusesLocalAndPrivateTargetsByDefault(String url) {
        DestinationConfigException e = assertThrows(DestinationConfigException.class,
                () -> guard.check(URI.create(url), "config.endpoint"));
        assertEquals("config.endpoint", e.field());
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
            assertEquals(Outcome.PERMANENT, result.outcome());
            assertTrue(result.reason().contains("refused"), result.reason());
            assertEquals(0, receiver.received().size());
        }
    }
}
