package io.changestream.alerts.destination;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpProxy;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.SocketAddressResolver;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Sends one HTTP request for a destination and classifies the answer: SSRF guard first, then Jetty's
 * {@code HttpClient} with connect timeout = the destination's {@code timeout} and response timeout = its
 * {@code readTimeout}, no redirects (a redirect could lead past the guard), bounded request and response sizes.
 *
 * <p>Resolve once: the client's address resolver is the guard ({@link AddressGuard#checkedAddresses}), so the host
 * is looked up once per connection and the client connects only to addresses that passed the check — a DNS server
 * that answers differently the second time (rebinding) gets no second question. TLS still verifies the certificate
 * against the URL's host name. No proxy unless {@link HttpSettings#proxy()} names one (JVM-wide proxy properties
 * are never read); with one, the guard checks every target before the request is handed to it. One client per
 * distinct connect timeout (at most {@code maxClients}), daemon threads. Thread-safe; {@link #close()} stops the
 * clients.
 */
public final class HttpSender implements AutoCloseable {

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
    private final int maxConnectionsPerHost;
    private volatile boolean closed;

    public HttpSender(HttpSettings settings, Clock clock) {
        this(settings, clock, DeliveryConcurrency.DEFAULTS.maxConnectionsPerHost());
    }

    /**
     * @param maxConnectionsPerHost pooled connections per scheme/host/port ({@code delivery.maxConnectionsPerHost});
     *                              requests beyond wait in the client's queue, bounded at 16 times as many
     */
    public HttpSender(HttpSettings settings, Clock clock, int maxConnectionsPerHost) {
        this.maxConnectionsPerHost = maxConnectionsPerHost;
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

    /**
     * Sends and classifies, waiting for the answer; never throws for a delivery failure. An interrupt aborts the
     * request (RETRY "interrupted").
     */
    public DeliveryResult send(Outbound out) {
        return await(sendAsync(out));
    }

    /** Waits for an asynchronous delivery; an interrupt cancels it (RETRY "interrupted"). */
    public static DeliveryResult await(CompletionStage<DeliveryResult> delivery) {
        CompletableFuture<DeliveryResult> sent = delivery.toCompletableFuture();
        try {
            return sent.get();
        } catch (InterruptedException e) {
            sent.cancel(true);
            Thread.currentThread().interrupt();
            return DeliveryResult.unanswered("interrupted");
        } catch (ExecutionException e) {
            return DeliveryResult.unanswered("I/O error: " + e.getCause());
        }
    }

    /**
     * Sends without waiting: the future completes (never exceptionally for a delivery failure) on one of the
     * client's threads when the answer is read — at most the first {@link HttpSettings#maxResponseBytes()} of its
     * body, the rest is discarded — or the request failed or timed out. Cancelling the future aborts the request.
     */
    public CompletableFuture<DeliveryResult> sendAsync(Outbound out) {
        if (out.body().length > settings.maxRequestBytes()) {
            return CompletableFuture.completedFuture(DeliveryResult.permanent("request body of " + out.body().length
                    + " bytes exceeds " + settings.maxRequestBytes() + " (http.maxRequestBytes)"));
        }
        Request request;
        try {
            if (settings.proxy() == null) {
                guard.checkUrl(out.uri(), out.field()); // the addresses are checked as the client resolves them
            } else {
                guard.check(out.uri(), out.field()); // the proxy resolves the target: check it here, explicitly
            }
            request = client(out.connectTimeout()).newRequest(out.uri())
                    .method(out.method())
                    .timeout(out.connectTimeout().plus(out.readTimeout()).toMillis(), TimeUnit.MILLISECONDS)
                    .idleTimeout(out.readTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .followRedirects(false)
                    .headers(h -> out.headers().forEach(h::put))
                    .body(new BytesRequestContent(out.body()));
        } catch (DestinationConfigException e) {
            return CompletableFuture.completedFuture(DeliveryResult.permanent(e.getMessage()));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(DeliveryResult.permanent("invalid request for " + out.field()
                    + ": " + e.getMessage()));
        }
        CompletableFuture<DeliveryResult> answer = new CompletableFuture<>();
        answer.whenComplete((r, e) -> {
            if (answer.isCancelled()) {
                request.abort(new java.util.concurrent.CancellationException("delivery cancelled"));
            }
        });
        request.send(new BoundedBody(settings.maxResponseBytes()) {
            @Override
            public void onComplete(Result result) {
                if (result.isFailed()) {
                    answer.complete(failed(out, result.getFailure()));
                    return;
                }
                Response response = result.getResponse();
                answer.complete(HttpOutcomes.classify(response.getStatus(),
                        response.getHeaders().get(HttpHeader.RETRY_AFTER), text(), clock, settings.maxRetryAfter()));
            }
        });
        return answer;
    }

    /**
     * Keeps the first {@code max} bytes of a response body (for the failure reason), discards the rest. The buffer
     * grows with what arrives: most answers have an empty or short body, and one buffer of {@code max} per request
     * would be allocated (and zeroed) for nothing.
     */
    private abstract static class BoundedBody implements Response.Listener {
        private static final byte[] NONE = new byte[0];
        private final int max;
        private byte[] kept = NONE;
        private int size;

        BoundedBody(int max) {
            this.max = max;
        }

        @Override
        public void onContent(Response response, ByteBuffer content) {
            int n = Math.min(content.remaining(), max - size);
            if (n <= 0) {
                return;
            }
            if (size + n > kept.length) {
                kept = java.util.Arrays.copyOf(kept, Math.min(max, Math.max(size + n, 2 * kept.length)));
            }
            content.get(kept, size, n);
            size += n;
        }

        String text() {
            return new String(kept, 0, size, StandardCharsets.UTF_8);
        }
    }

    private static DeliveryResult failed(Outbound out, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DestinationConfigException refused) {
                return DeliveryResult.permanent(out.field() + refused.getMessage().substring(refused.field().length()));
            }
        }
        if (cause instanceof SocketTimeoutException && String.valueOf(cause.getMessage()).contains("onnect")) {
            return DeliveryResult.retry(null, "connect timeout after " + out.connectTimeout().toSeconds() + " s");
        }
        if (cause instanceof TimeoutException || cause instanceof SocketTimeoutException) {
            return DeliveryResult.unanswered("no response within " + out.readTimeout().toSeconds() + " s");
        }
        if (cause instanceof ConnectException) {
            return DeliveryResult.retry(null, "connect failed: " + cause);
        }
        if (cause instanceof UnknownHostException) {
            return DeliveryResult.retry(null, "host does not resolve: " + cause.getMessage());
        }
        return DeliveryResult.unanswered("I/O error: " + cause);
    }

    private HttpClient client(Duration connectTimeout) {
        HttpClient client = clients.get(connectTimeout);
        if (client != null) {
            return client;
        }
        if (closed) {
            throw new IllegalStateException("the HTTP sender is closed");
        }
        synchronized (clients) {
            client = clients.get(connectTimeout);
            if (client == null) {
                if (clients.size() >= settings.maxClients()) {
                    clients.values().forEach(HttpSender::stop);
                    clients.clear();
                }
                client = newClient(connectTimeout);
                clients.put(connectTimeout, client);
            }
            return client;
        }
    }

    private HttpClient newClient(Duration connectTimeout) {
        ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(new SslContextFactory.Client());
        QueuedThreadPool threads = new QueuedThreadPool(32, 2);
        threads.setName("http-sender-" + connectTimeout.toMillis() + "ms");
        threads.setDaemon(true);
        connector.setExecutor(threads);
        HttpClient client = new HttpClient(new org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP(
                connector));
        client.setExecutor(threads);
        client.setConnectTimeout(connectTimeout.toMillis());
        client.setMaxConnectionsPerDestination(maxConnectionsPerHost);
        client.setMaxRequestsQueuedPerDestination(maxConnectionsPerHost * 16);
        client.setFollowRedirects(false);
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "changestream"));
        client.getContentDecoderFactories().clear(); // no Accept-Encoding: bodies are read for the reason only
        InetSocketAddress proxy = settings.proxyAddress();
        if (proxy != null) {
            client.getProxyConfiguration().addProxy(new HttpProxy(proxy.getHostString(), proxy.getPort()));
        }
        client.setSocketAddressResolver(checkedResolver(guard, proxy == null ? null : proxy.getHostString()));
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the HTTP client", e);
        }
        return client;
    }

    /**
     * The client's resolver: one lookup through the guard, and only the checked addresses are connected to. The
     * configured proxy (operator-chosen, often on a private network) is resolved without the check.
     */
    static SocketAddressResolver checkedResolver(AddressGuard guard, String proxyHost) {
        AddressGuard open = new AddressGuard(true);
        return (host, port, context, promise) -> {
            try {
                AddressGuard judge = host.equals(proxyHost) ? open : guard;
                List<InetSocketAddress> out = new ArrayList<>();
                for (InetAddress address : judge.checkedAddresses(host, "host")) {
                    out.add(new InetSocketAddress(address, port));
                }
                promise.succeeded(out);
            } catch (UnknownHostException | DestinationConfigException e) {
                promise.failed(e);
            }
        };
    }

    private static void stop(HttpClient client) {
        try {
            client.stop();
        } catch (Exception e) {
            // stopping a client frees its threads; nothing to retry
        }
    }

    /** Stops every client; idempotent. */
    @Override
    public void close() {
        closed = true;
        synchronized (clients) {
            clients.values().forEach(HttpSender::stop);
            clients.clear();
        }
    }
}
