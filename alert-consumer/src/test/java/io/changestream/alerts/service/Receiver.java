package io.changestream.alerts.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real local HTTP receiver (JDK HttpServer) standing in for webhook, Slack-, Teams- and OpenLineage-shaped
 * endpoints: records every request by path and answers per path (a script of statuses first, then a default).
 */
final class Receiver implements AutoCloseable {

    /** One request as received. */
    record Hit(String path, String idempotencyKey, String signature, JsonNode body, String raw, String traceparent) {
    }

    private final HttpServer server;
    // one thread per request in flight, like separate receivers: a path that holds its requests (a black hole)
    // must not starve the other paths, which stand for other endpoints (deliveries now run concurrently)
    private final ExecutorService pool = Executors.newFixedThreadPool(256);
    private final List<Hit> hits = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Integer>> scripts = new ConcurrentHashMap<>();
    private final Map<String, Integer> defaults = new ConcurrentHashMap<>();
    private final Map<String, java.util.concurrent.CountDownLatch> holds = new ConcurrentHashMap<>();
    private final Map<String, Slow> slows = new ConcurrentHashMap<>();
    private final Map<String, String> retryAfters = new ConcurrentHashMap<>();

    static {
        // the JDK server writes headers and body apart; with Nagle on, every answer waits for the client's delayed
        // ACK (~40 ms), so one destination's retry-path drain crawled at ~21 requests/s in RetryPathIT
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    Receiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(pool);
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            String raw = new String(body, java.nio.charset.StandardCharsets.UTF_8);
            JsonNode json;
            try {
                json = Json.mapper().readTree(raw);
            } catch (IOException e) {
                json = null;
            }
            hits.add(new Hit(path, exchange.getRequestHeaders().getFirst("Idempotency-Key"),
                    exchange.getRequestHeaders().getFirst("X-OM-Signature"), json, raw,
                    exchange.getRequestHeaders().getFirst("traceparent")));
            Slow slow = slows.get(path);
            if (slow != null && slow.counter.incrementAndGet() % slow.every == 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(slow.delay.toNanos()); // a slow receiver
            }
            java.util.concurrent.CountDownLatch hold = holds.get(path);
            if (hold != null) {
                try {
                    hold.await(20, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Integer scripted = null;
            Deque<Integer> script = scripts.get(path);
            if (script != null) {
                synchronized (script) {
                    scripted = script.pollFirst();
                }
            }
            int status = scripted != null ? scripted : defaults.getOrDefault(path, 200);
            String retryAfter = retryAfters.get(path);
            if (retryAfter != null && status >= 400) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter);
            }
            byte[] answer = ("status " + status).getBytes();
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    /** The URL of a path on this receiver. */
    String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The next requests to {@code path} get these statuses, in order. */
    Receiver then(String path, Integer... statuses) {
        scripts.computeIfAbsent(path, p -> new ArrayDeque<>()).addAll(List.of(statuses));
        return this;
    }

    /** Every request to {@code path} without a scripted status gets this one. */
    Receiver always(String path, int status) {
        defaults.put(path, status);
        return this;
    }

    /** Failures on {@code path} carry {@code Retry-After: <value>} (null: none). */
    Receiver retryAfter(String path, String value) {
        if (value == null) {
            retryAfters.remove(path);
        } else {
            retryAfters.put(path, value);
        }
        return this;
    }

    /** Every {@code every}-th request to {@code path} is answered only after {@code delay}. */
    Receiver slowEvery(String path, int every, java.time.Duration delay) {
        slows.put(path, new Slow(every, delay, new java.util.concurrent.atomic.AtomicInteger()));
        return this;
    }

    private record Slow(int every, java.time.Duration delay, java.util.concurrent.atomic.AtomicInteger counter) {
    }

    /** Requests to {@code path} hang (a black hole) until {@link #release}. */
    Receiver hold(String path) {
        holds.put(path, new java.util.concurrent.CountDownLatch(1));
        return this;
    }

    /** Requests to {@code path} are answered again. */
    Receiver release(String path) {
        java.util.concurrent.CountDownLatch hold = holds.remove(path);
        if (hold != null) {
            hold.countDown();
        }
        return this;
    }

    /** Requests received on {@code path}. */
    List<Hit> hits(String path) {
        return hits.stream().filter(h -> h.path().equals(path)).toList();
    }

    List<Hit> all() {
        return List.copyOf(hits);
    }

    @Override
    public void close() {
        holds.values().forEach(java.util.concurrent.CountDownLatch::countDown);
        server.stop(0);
        pool.shutdownNow();
    }
}
