package io.changestream.alerts.destination;

import io.changestream.testkit.LoopbackHttpServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A real local HTTP receiver (JDK HttpServer) that records requests and answers scripted statuses. */
public final class LocalReceiver implements AutoCloseable {

    public record Received(String method, String path, String query, Map<String, List<String>> headers, byte[] body) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    public record Reply(int status, Map<String, String> headers, CountDownLatch holdUntil, String body) {
    }

    private final LoopbackHttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
    private volatile int defaultStatus = 200;

    public LocalReceiver() {
        server = LoopbackHttpServer.start(64, exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestURI().getQuery(), Map.copyOf(exchange.getRequestHeaders()), body));
            Reply reply = script.poll();
            int status = reply == null ? defaultStatus : reply.status();
            if (reply != null) {
                reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
                if (reply.holdUntil() != null) {
                    try {
                        reply.holdUntil().await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            byte[] answer = (reply != null && reply.body() != null ? reply.body() : "status " + status).getBytes();
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
    }

    public URI uri(String path) {
        return URI.create(server.url(path));
    }

    public LocalReceiver then(int status, Map<String, String> headers) {
        script.add(new Reply(status, headers, null, null));
        return this;
    }

    /** The next request is answered with {@code status} and this body. */
    public LocalReceiver thenBody(int status, String body) {
        script.add(new Reply(status, Map.of(), null, body));
        return this;
    }

    public LocalReceiver then(int status) {
        return then(status, Map.of());
    }

    public LocalReceiver thenHold(CountDownLatch latch) {
        script.add(new Reply(200, Map.of(), latch, null));
        return this;
    }

    public LocalReceiver always(int status) {
        defaultStatus = status;
        return this;
    }

    public List<Received> received() {
        return received;
    }

    @Override
    public void close() {
        server.close();
    }
}
