package io.changestream.alerts.destination.http;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Issue 12: destinations never go through the JVM-wide proxy; an explicit proxy gets only guarded targets; without a
 * proxy the client connects only to the addresses the guard resolved and checked (resolve once).
 */
@Isolated
class HttpSenderProxyTest {

    private static HttpSender.Outbound post(URI uri) {
        return new HttpSender.Outbound(uri, "POST", Map.of(), "{}".getBytes(), Duration.ofSeconds(2),
                Duration.ofSeconds(2), "config.endpoint");
    }

    @Test
    void theJvmWideProxyPropertiesAreIgnored() {
        try (LocalReceiver proxy = new LocalReceiver(); LocalReceiver target = new LocalReceiver()) {
            String[] keys = {"http.proxyHost", "http.proxyPort", "http.nonProxyHosts"};
            String[] saved = new String[keys.length];
            for (int i = 0; i < keys.length; i++) {
                saved[i] = System.getProperty(keys[i]);
            }
            URI proxyUri = proxy.uri("/");
            System.setProperty("http.proxyHost", proxyUri.getHost());
            System.setProperty("http.proxyPort", Integer.toString(proxyUri.getPort()));
            System.setProperty("http.nonProxyHosts", "");
            try {
                HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                        Clock.systemUTC());
                assertEquals(Kind.DELIVERED, sender.send(post(target.uri("/hook"))).outcome());
                assertEquals(1, target.received().size(), "straight to the target");
                assertEquals(0, proxy.received().size(), "never through the JVM's proxy");
            } finally {
                for (int i = 0; i < keys.length; i++) {
                    if (saved[i] == null) {
                        System.clearProperty(keys[i]);
                    } else {
                        System.setProperty(keys[i], saved[i]);
                    }
                }
            }
        }
    }

    @Test
    void anExplicitProxyCarriesRequestsButTheGuardStillChecksEveryTarget() {
        try (LocalReceiver proxy = new LocalReceiver(); LocalReceiver target = new LocalReceiver()) {
            URI proxyUri = proxy.uri("/");
            String hostPort = proxyUri.getHost() + ":" + proxyUri.getPort();

            HttpSender guarded = new HttpSender(HttpSettings.DEFAULTS.withProxy(hostPort), Clock.systemUTC());
            DeliveryResult refused = guarded.send(post(target.uri("/hook")));
            assertEquals(Kind.PERMANENT, refused.outcome());
            assertTrue(refused.reason().contains("refused"), refused.reason());
            assertEquals(0, proxy.received().size(), "a private target is refused before the proxy sees it");

            HttpSender open = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses().withProxy(hostPort),
                    Clock.systemUTC());
            assertEquals(Kind.DELIVERED, open.send(post(target.uri("/hook"))).outcome());
            assertEquals(1, proxy.received().size(), "through the configured proxy");
            assertEquals(0, target.received().size());
        }
    }

    @Test
    void aPrivateProxyIsReachableWhileTheGuardIsOnForTargets() {
        try (LocalReceiver proxy = new LocalReceiver()) {
            URI proxyUri = proxy.uri("/");
            HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.withProxy(proxyUri.getHost() + ":"
                    + proxyUri.getPort()), Clock.systemUTC());
            assertEquals(Kind.DELIVERED, sender.send(post(URI.create("http://8.8.8.8/hook"))).outcome(),
                    "a public target through the operator's proxy on a private address");
            assertEquals(1, proxy.received().size());
            sender.close();
        }
    }

    @Test
    void theClientConnectsOnlyToAddressesTheGuardResolvedAndChecked() throws Exception {
        org.eclipse.jetty.util.SocketAddressResolver resolver = HttpSender.checkedResolver(new AddressGuard(false),
                null);
        java.util.concurrent.CompletableFuture<java.util.List<java.net.InetSocketAddress>> refused =
                new java.util.concurrent.CompletableFuture<>();
        resolver.resolve("localhost", 80, Map.of(), org.eclipse.jetty.util.Promise.from(refused::complete,
                refused::completeExceptionally));
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, refused::get);
        assertTrue(e.getCause() instanceof DestinationConfigException, String.valueOf(e.getCause()));

        java.util.concurrent.CompletableFuture<java.util.List<java.net.InetSocketAddress>> checked =
                new java.util.concurrent.CompletableFuture<>();
        resolver.resolve("8.8.4.4", 443, Map.of(), org.eclipse.jetty.util.Promise.from(checked::complete,
                checked::completeExceptionally));
        assertEquals(java.util.List.of(new java.net.InetSocketAddress("8.8.4.4", 443)), checked.get());
    }

    @Test
    void aProxySettingThatIsNotHostPortNamesTheSetting() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> HttpSettings.DEFAULTS.withProxy("no-port"));
        assertTrue(e.getMessage().startsWith("destinations.proxy"), e.getMessage());
    }
}
