package io.changestream.alerts.destination.http;

import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.Redaction;
import io.changestream.alerts.destination.limits.DeliveryConcurrency;
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
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
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
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Sends one HTTP request for a destination and classifies the answer: SSRF guard first, then one Jetty
 * {@code HttpClient} for every destination, no redirects (a redirect could lead past the guard), bounded request and
 * response sizes.
 *
 * <p>Deadlines are per request: the connection must be had (from the pool or connected) within the destination's
 * {@code timeout}, and the whole exchange ends within {@code timeout + readTimeout}, never past
 * {@link HttpSettings#maxRequestTime()} — whatever a stored destination says, no request holds a connection longer.
 * Cancelling a request's future aborts the exchange and closes its connection; no client is ever stopped while it has
 * exchanges (the one client stops only in {@link #close()}), so one destination's settings never abort another's
 * requests.
 *
 * <p>Resolve once: the client's address resolver is the guard ({@link AddressGuard#checkedAddresses}), so the host
 * is looked up once per connection and the client connects only to addresses that passed the check — a DNS server
 * that answers differently the second time (rebinding) gets no second question. TLS still verifies the certificate
 * against the URL's host name. No proxy unless {@link HttpSettings#proxy()} names one (JVM-wide proxy properties
 * are never read); with one, the guard checks every target before the request is handed to it. Daemon threads.
 * Thread-safe; {@link #close()} stops the client.
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

    /** Threads of the client: its selector and the completions of every destination's requests. */
    private static final int THREADS = 32;

    private final HttpSettings settings;
    private final AddressGuard guard;
    private final Clock clock;
    private final int maxConnectionsPerHost;
    private final Object lock = new Object();
    private volatile HttpClient client;
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
        Duration connect = min(out.connectTimeout(), settings.maxRequestTime());
        Duration total = min(out.connectTimeout().plus(out.readTimeout()), settings.maxRequestTime());
        Request request;
        HttpClient http;
        try {
            if (settings.proxy() == null) {
                guard.checkUrl(out.uri(), out.field()); // the addresses are checked as the client resolves them
            } else {
                guard.check(out.uri(), out.field()); // the proxy resolves the target: check it here, explicitly
            }
            http = client();
            request = http.newRequest(out.uri())
                    .method(out.method())
                    .timeout(total.toMillis(), TimeUnit.MILLISECONDS)
                    .idleTimeout(min(out.readTimeout(), total).toMillis(), TimeUnit.MILLISECONDS)
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
        // the destination's connect timeout, per request: no connection (pooled or new) by then aborts the request
        AtomicBoolean begun = new AtomicBoolean();
        request.onRequestBegin(r -> begun.set(true));
        Scheduler.Task connectDeadline = http.getScheduler().schedule(() -> {
            if (!begun.get()) {
                request.abort(new SocketTimeoutException("connect timeout: no connection within "
                        + connect.toMillis() + " ms"));
            }
        }, connect.toMillis(), TimeUnit.MILLISECONDS);
        answer.whenComplete((r, e) -> {
            connectDeadline.cancel();
            if (answer.isCancelled()) {
                request.abort(new CancellationException("delivery cancelled"));
            }
        });
        request.send(new BoundedBody(settings.maxResponseBytes()) {
            @Override
            public void onComplete(Result result) {
                if (result.isFailed()) {
                    answer.complete(failed(out, total, result.getFailure()));
                    return;
                }
                Response response = result.getResponse();
                answer.complete(HttpOutcomes.classify(response.getStatus(),
                        response.getHeaders().get(HttpHeader.RETRY_AFTER), Redaction.reason(text()), clock,
                        settings.maxRetryAfter()));
            }
        });
        return answer;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
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

    private static DeliveryResult failed(Outbound out, Duration total, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DestinationConfigException refused) {
                return DeliveryResult.permanent(out.field() + refused.getMessage().substring(refused.field().length()));
            }
        }
        if (cause instanceof SocketTimeoutException && String.valueOf(cause.getMessage()).contains("onnect")) {
            return DeliveryResult.retry(null, "connect timeout after " + out.connectTimeout().toSeconds() + " s");
        }
        if (cause instanceof TimeoutException || cause instanceof SocketTimeoutException) {
            boolean whole = String.valueOf(cause.getMessage()).startsWith("Total timeout");
            return DeliveryResult.unanswered("no response within " + seconds(whole ? total : out.readTimeout())
                    + (whole ? " (the request's deadline)" : ""));
        }
        if (cause instanceof CancellationException) {
            return DeliveryResult.unanswered("cancelled: " + cause.getMessage());
        }
        if (cause instanceof ConnectException) {
            return DeliveryResult.retry(null, Redaction.reason("connect failed: " + cause));
        }
        if (cause instanceof UnknownHostException) {
            return DeliveryResult.retry(null, Redaction.reason("host does not resolve: " + cause.getMessage()));
        }
        // Jetty's texts can hold the request line or URL, whose path is the credential of a chat webhook
        return DeliveryResult.unanswered(Redaction.reason("I/O error: " + cause));
    }

    /** The one client, started on first use. */
    private HttpClient client() {
        HttpClient started = client;
        if (started != null) {
            return started;
        }
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the HTTP sender is closed");
            }
            if (client == null) {
                client = newClient();
            }
            return client;
        }
    }

    private HttpClient newClient() {
        ClientConnector connector = new ClientConnector();
        connector.setSslContextFactory(new SslContextFactory.Client());
        QueuedThreadPool threads = new QueuedThreadPool(THREADS, 2);
        threads.setName("http-sender");
        threads.setDaemon(true);
        connector.setExecutor(threads);
        HttpClient client = new HttpClient(new org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP(
                connector));
        client.setExecutor(threads);
        // the socket connect's own bound; each request's connect timeout is enforced per request (sendAsync)
        client.setConnectTimeout(settings.maxRequestTime().toMillis());
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

    /** Stops the client (its exchanges end); idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (client != null) {
                try {
                    client.stop();
                } catch (Exception e) {
                    // stopping the client frees its threads; nothing to retry
                }
                client = null;
            }
        }
    }
}
