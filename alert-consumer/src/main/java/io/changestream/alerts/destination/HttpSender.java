package io.changestream.alerts.destination;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends one HTTP request for a destination and classifies the answer: SSRF guard first, then
 * {@code java.net.http.HttpClient} with connect timeout = the destination's {@code timeout} and request timeout =
 * its {@code readTimeout}, no redirects (a redirect could lead past the guard), bounded request and response
 * sizes. No proxy unless {@link HttpSettings#proxy()} names one (the JVM-wide proxy properties are ignored); with one,
 * the guard still checks every target before the request is handed to it. One HttpClient per distinct connect
 * timeout. Thread-safe.
 */
public final class HttpSender {

    /**
     * One request.
     *
     * @param uri            target
     * @param method         POST or PUT
     * @param headers        headers (custom ones first; fixed ones override)
     * @param body           body bytes
     * @param connectTimeout connect timeout
     * @param readTimeout    request (response) timeout
     * @param field          the config field the URI came from, for errors
     */
    public record Outbound(URI uri, String method, Map<String, String> headers, byte[] body, Duration connectTimeout,
                           Duration readTimeout, String field) {
        public Outbound {
            Objects.requireNonNull(uri, "uri");
            Objects.requireNonNull(method, "method");
            headers = Map.copyOf(headers);
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(readTimeout, "readTimeout");
        }
    }

    private final HttpSettings settings;
    private final AddressGuard guard;
    private final Clock clock;
    private final Map<Duration, HttpClient> clients = new ConcurrentHashMap<>();

    public HttpSender(HttpSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.guard = new AddressGuard(settings.allowPrivateAddresses());
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The settings. */
    public HttpSettings settings() {
        return settings;
    }

    /** The guard this sender applies (validators use it at save time). */
    public AddressGuard guard() {
        return guard;
    }

    /** Sends and classifies; never throws for a delivery failure. */
    public DeliveryResult send(Outbound out) {
        if (out.body().length > settings.maxRequestBytes()) {
            return DeliveryResult.permanent("request body of " + out.body().length + " bytes exceeds "
                    + settings.maxRequestBytes() + " (http.maxRequestBytes)");
        }
        HttpRequest request;
        try {
            guard.check(out.uri(), out.field());
            HttpRequest.Builder builder = HttpRequest.newBuilder(out.uri())
                    .timeout(out.readTimeout())
                    .method(out.method(), HttpRequest.BodyPublishers.ofByteArray(out.body()));
            out.headers().forEach(builder::setHeader);
            request = builder.build();
        } catch (DestinationConfigException e) {
            return DeliveryResult.permanent(e.getMessage());
        } catch (IllegalArgumentException e) {
            return DeliveryResult.permanent("invalid request for " + out.field() + ": " + e.getMessage());
        }
        try {
            HttpResponse<InputStream> response = client(out.connectTimeout())
                    .send(request, HttpResponse.BodyHandlers.ofInputStream());
            String body;
            try (InputStream in = response.body()) {
                body = new String(in.readNBytes(settings.maxResponseBytes()), StandardCharsets.UTF_8);
            }
            return HttpOutcomes.classify(response.statusCode(),
                    response.headers().firstValue("Retry-After").orElse(null), body, clock, settings.maxRetryAfter());
        } catch (HttpConnectTimeoutException e) {
            return DeliveryResult.retry(null, "connect timeout after " + out.connectTimeout().toSeconds() + " s");
        } catch (HttpTimeoutException e) {
            return DeliveryResult.retry(null, "no response within " + out.readTimeout().toSeconds() + " s");
        } catch (ConnectException e) {
            return DeliveryResult.retry(null, "connect failed: " + e);
        } catch (IOException e) {
            return DeliveryResult.retry(null, "I/O error: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DeliveryResult.retry(null, "interrupted");
        }
    }

    private HttpClient client(Duration connectTimeout) {
        HttpClient client = clients.get(connectTimeout);
        if (client != null) {
            return client;
        }
        if (clients.size() >= settings.maxClients()) {
            clients.clear();
        }
        InetSocketAddress proxy = settings.proxyAddress();
        return clients.computeIfAbsent(connectTimeout, timeout -> HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                // never the JVM-wide default selector (http.proxyHost…): it would carry requests past the guard
                .proxy(proxy == null ? HttpClient.Builder.NO_PROXY : ProxySelector.of(proxy))
                .build());
    }
}
