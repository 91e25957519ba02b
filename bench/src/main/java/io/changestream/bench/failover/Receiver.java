package io.changestream.bench.failover;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The webhook receiver of the failover bench: answers 200 to every POST and records, per event id (read from the
 * body's {@code id}), every arrival time and the {@code Idempotency-Key} of its first copy; a later copy with another
 * key is counted. Its pool's threads record; the bench's main thread reads. Thread-safe.
 */
final class Receiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(32);
    /** event id → its copies. */
    private final Map<String, Copies> byEvent = new ConcurrentHashMap<>();
    /** Every arrival in arrival order (event id, time). */
    private final List<Arrival> arrivals = new ArrayList<>();
    private final AtomicLong otherKeys = new AtomicLong();

    private record Arrival(String eventId, long at) {
    }

    /** The copies of one event: how many, and the key of the first. */
    private static final class Copies {
        private final String key;
        private int count;

        Copies(String key) {
            this.key = key;
        }
    }

    Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.setExecutor(pool);
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                long at = System.currentTimeMillis();
                String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
                JsonNode id = JSON.readTree(body).get("id");
                exchange.sendResponseHeaders(200, -1);
                if (id != null) {
                    record(id.asText(), key, at);
                }
            }
        });
        server.start();
    }

    private void record(String eventId, String key, long at) {
        Copies copies = byEvent.computeIfAbsent(eventId, id -> new Copies(key));
        synchronized (copies) {
            copies.count++;
            if (copies.count > 1 && (key == null || !key.equals(copies.key))) {
                otherKeys.incrementAndGet();
            }
        }
        synchronized (arrivals) {
            arrivals.add(new Arrival(eventId, at));
        }
    }

    /** Every copy received so far. */
    long arrivals() {
        synchronized (arrivals) {
            return arrivals.size();
        }
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/failover";
    }

    /** Event id → its first arrival after {@code after} (every copy counts). */
    Map<String, Long> firstArrivalsAfter(long after) {
        Map<String, Long> out = new HashMap<>();
        synchronized (arrivals) {
            for (int i = arrivals.size() - 1; i >= 0 && arrivals.get(i).at() > after; i--) {
                out.put(arrivals.get(i).eventId(), arrivals.get(i).at());
            }
        }
        return out;
    }

    long missing(Set<String> ids) {
        return ids.stream().filter(id -> !byEvent.containsKey(id)).count();
    }

    /** Copies beyond the first of the events {@code ids}. */
    long duplicates(Set<String> ids) {
        long n = 0;
        for (String id : ids) {
            Copies c = byEvent.get(id);
            if (c != null) {
                synchronized (c) {
                    n += c.count - 1;
                }
            }
        }
        return n;
    }

    /** Copies whose Idempotency-Key differs from the first copy's. */
    long copiesWithAnotherKey() {
        return otherKeys.get();
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
