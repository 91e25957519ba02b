package io.changestream.logs;

import io.changestream.logs.engine.EventFrames;
import io.changestream.topics.model.LogStreamEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A test SSE client over a real HTTP connection: reads frames on its own thread and keeps them. */
final class SseClient implements AutoCloseable {

    final int status;
    final String contentType;
    final List<LogStreamEvent> events = new CopyOnWriteArrayList<>();
    final List<String> comments = new CopyOnWriteArrayList<>();
    volatile boolean ended;
    private final InputStream body;
    private final Thread reader;

    private SseClient(HttpResponse<InputStream> response) {
        this.status = response.statusCode();
        this.contentType = response.headers().firstValue("content-type").orElse("");
        this.body = response.body();
        this.reader = new Thread(this::read, "sse-client");
        reader.setDaemon(true);
        reader.start();
    }

    static SseClient open(HttpClient http, URI uri, String token, boolean acceptHeader) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).GET();
        if (token != null) {
            req.header("Authorization", "Bearer " + token);
        }
        if (acceptHeader) {
            req.header("Accept", "text/event-stream");
        }
        HttpResponse<InputStream> response = http.sendAsync(req.build(), HttpResponse.BodyHandlers.ofInputStream())
                .get(10, TimeUnit.SECONDS);
        return new SseClient(response);
    }

    String text() {
        StringBuilder b = new StringBuilder();
        events.stream().filter(e -> e.logs() != null).forEach(e -> b.append(e.logs()));
        return b.toString();
    }

    LogStreamEvent last() {
        return events.isEmpty() ? null : events.get(events.size() - 1);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    events.add(EventFrames.mapper().readValue(line.substring(6), LogStreamEvent.class));
                } else if (line.startsWith(":")) {
                    comments.add(line);
                }
            }
        } catch (IOException e) {
            // closed
        } finally {
            ended = true;
        }
    }

    @Override
    public void close() throws Exception {
        body.close();
        reader.join(Duration.ofSeconds(5).toMillis());
    }
}
