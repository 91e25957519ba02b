package io.changestream.logs.source;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.logs.engine.EventFrames;
import io.changestream.logs.engine.SourceUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A run's log served by a pipeline service in Airflow's style: the task log in fixed-size chunks,
 * {@code GET <base>/pipelines/<fqn>/runs/<runId>/logs?chunk=<i>} → {@code {"content": "...", "total": <chunks>}},
 * the last chunk growing while the task runs, a chunk index at or past {@code total} answered with 400.
 *
 * <p>Cursor {@code <chunk>:<charsDelivered>}: a read re-reads the current chunk and returns only what is past the
 * delivered count; it moves to chunk {@code i+1} only once the backend reported {@code total > i+1}, so it never
 * asks for a chunk the backend did not offer. A chunk that shrank (a new attempt) re-anchors silently at its new
 * length. Backend errors become exceptions, never log text: 5xx, 400, 404 and I/O errors are transient
 * ({@link IOException}); 401, 403 and 410 are fatal ({@link SourceUnavailableException}). Thread-safe (stateless).
 */
public final class PipelineServiceLogSource implements LogSource {

    private final HttpClient http;
    private final URI base;
    private final String pipelineFqn;
    private final String runId;
    private final Duration timeout;
    private final String token;

    /**
     * A source for one run.
     *
     * @param token bearer token sent to the service, or null
     */
    public PipelineServiceLogSource(HttpClient http, URI base, String pipelineFqn, String runId, Duration timeout,
                                    String token) {
        this.http = http;
        this.base = base;
        this.pipelineFqn = PathNames.require("pipeline fqn", pipelineFqn);
        this.runId = PathNames.require("run id", runId);
        this.timeout = timeout;
        this.token = token;
    }

    @Override
    public String kind() {
        return "service";
    }

    @Override
    public String startCursor() {
        return "0:0";
    }

    @Override
    public Page read(String cursor, int maxLines, long maxBytes) throws IOException {
        int chunk;
        int delivered;
        boolean restarted = false;
        try {
            String[] parts = (cursor == null ? startCursor() : cursor).split(":", -1);
            if (parts.length != 2) {
                throw new NumberFormatException("not chunk:chars");
            }
            chunk = Integer.parseInt(parts[0]);
            delivered = Integer.parseInt(parts[1]);
            if (chunk < 0 || delivered < 0) {
                throw new NumberFormatException("negative");
            }
        } catch (NumberFormatException e) {
            chunk = 0;
            delivered = 0;
            restarted = true;
        }
        String before = chunk + ":" + delivered;
        JsonNode body = fetch(chunk);
        String content = body.path("content").asText("");
        int total = body.path("total").asInt(0);
        if (content.length() < delivered) {
            // a new attempt wrote a shorter chunk: re-anchor at its length, send nothing twice
            return new Page(before, "", chunk + ":" + content.length(), false, restarted);
        }
        int end = content.length();
        if (end - delivered > maxBytes) {
            end = (int) (delivered + Math.max(1, maxBytes));
            if (Character.isHighSurrogate(content.charAt(end - 1))) {
                end++;
            }
        }
        String fresh = content.substring(delivered, end);
        boolean chunkDone = end == content.length();
        if (chunkDone && total > chunk + 1) {
            return new Page(before, fresh, (chunk + 1) + ":0", true, restarted);
        }
        return new Page(before, fresh, chunk + ":" + end, !chunkDone, restarted);
    }

    private JsonNode fetch(int chunk) throws IOException {
        URI uri = URI.create(base.toString().replaceAll("/+$", "") + "/pipelines/" + encode(pipelineFqn) + "/runs/"
                + encode(runId) + "/logs?chunk=" + chunk);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the pipeline service", e);
        }
        int status = response.statusCode();
        if (status == 401 || status == 403 || status == 410) {
            throw new SourceUnavailableException("The pipeline service refused the log of this run (HTTP " + status
                    + ").");
        }
        if (status != 200) {
            throw new IOException("pipeline service answered HTTP " + status + " for chunk " + chunk);
        }
        try {
            return EventFrames.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new IOException("pipeline service sent a body that is not JSON", e);
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
