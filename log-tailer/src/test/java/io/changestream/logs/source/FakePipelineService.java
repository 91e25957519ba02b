package io.changestream.logs.source;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.changestream.logs.engine.EventFrames;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real local HTTP server behaving like an Airflow-style chunked log API for one run: chunk i → content and total;
 * an index at or past total → 400. Records every chunk index asked for.
 */
public final class FakePipelineService implements AutoCloseable {

    final List<StringBuilder> chunks = new ArrayList<>();
    final List<Integer> asked = new CopyOnWriteArrayList<>();
    volatile int failWith;
    private final HttpServer server;

    /** Starts the server on a free port. */
    public FakePipelineService() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/pipelines/svc.pipe/runs/scheduled__1/logs", this::handle);
        server.start();
    }

    /** The base URL to configure as {@code pipelineService.url}. */
    public URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api");
    }

    /** Appends to the last chunk (creating the first). */
    public synchronized void append(String text) {
        if (chunks.isEmpty()) {
            chunks.add(new StringBuilder());
        }
        chunks.get(chunks.size() - 1).append(text);
    }

    synchronized void newChunk(String text) {
        chunks.add(new StringBuilder(text));
    }

    synchronized void replaceLast(String text) {
        chunks.set(chunks.size() - 1, new StringBuilder(text));
    }

    private void handle(HttpExchange exchange) throws IOException {
        int chunk = Integer.parseInt(exchange.getRequestURI().getQuery().replace("chunk=", ""));
        asked.add(chunk);
        int status;
        String body;
        synchronized (this) {
            if (failWith != 0) {
                status = failWith;
                body = "{\"error\":\"Internal server error: scheduler unreachable\"}";
            } else if (chunk >= Math.max(1, chunks.size())) {
                status = 400;
                body = "{\"error\":\"chunk out of range\"}";
            } else {
                status = 200;
                String content = chunks.isEmpty() ? "" : chunks.get(chunk).toString();
                body = EventFrames.json(Map.of("content", content, "total", chunks.size()));
            }
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
