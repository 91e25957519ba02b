package io.changestream.logs.source;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A pipeline's log as the platform's Airflow plugin serves it ({@code last_dag_logs.py} of
 * {@code openmetadata-managed-apis}): {@code GET <url>/<apiPath>/last_dag_logs?dag_id=<dag>&task_id=<task>&after=<i>}
 * answers chunk {@code i} of the task log of the DAG's <em>last</em> run as {@code {"<task>": "<chunk>", "total": N,
 * "after": i+1}} ({@code after} only while more chunks follow), 400 when {@code i >= total}, 404 for an unknown DAG
 * or a DAG without runs; the last chunk grows while the task runs. The DAG id is the pipeline's name: the last
 * segment of its FQN, quotes removed (the platform's client sends {@code ingestionPipeline.getName()}).
 *
 * <p>Cursor {@code <chunk>:<charsDelivered>}: a read re-reads the current chunk and returns what is past the
 * delivered count; it moves to chunk {@code i+1} only when the plugin sent {@code after}. A new try of the task
 * (the current chunk shorter than what was delivered, or the chunk index now past {@code total}) restarts at
 * {@code 0:0} flagged {@link Page#restarted()}: the viewer is told {@code truncated} and shows the new try from its
 * start. 401/403 are fatal ({@link SourceUnavailableException}); 404 and "can't fetch logs" 400s are
 * {@link MissingLogException}; 5xx and I/O errors are transient. Reads go through the backend's {@link ReadGate}
 * ({@code airflow.maxConcurrentReads}); an answer larger than {@code airflow.maxResponseBytes} is not read further
 * and is {@link ReadLimitException.TooLarge}. Thread-safe (stateless).
 */
public final class AirflowLogSource implements LogSource {

    private static final String OUT_OF_BOUNDS = "out of bounds";

    private final HttpClient http;
    private final AirflowSettings settings;
    private final String dagId;
    private final ReadGate gate;

    /** The source of pipeline {@code pipelineFqn} (validated by {@link PathNames}), with the default read limits. */
    public AirflowLogSource(HttpClient http, AirflowSettings settings, String pipelineFqn) {
        this(http, settings, new ReadGate(ReadLimits.airflowDefaults()), pipelineFqn);
    }

    /** The source of pipeline {@code pipelineFqn}, its reads bounded by {@code gate}. */
    public AirflowLogSource(HttpClient http, AirflowSettings settings, ReadGate gate, String pipelineFqn) {
        this.http = http;
        this.settings = settings;
        this.gate = gate;
        this.dagId = dagId(PathNames.require("pipeline fqn", pipelineFqn));
    }

    @Override
    public int maxActiveRuns() {
        return gate.limits().maxActiveRuns();
    }

    /** The DAG id of a pipeline FQN: its last dot-separated segment, quotes removed ({@code svc."a.b"} → {@code a.b}). */
    static String dagId(String fqn) {
        int start = 0;
        boolean quoted = false;
        for (int i = 0; i < fqn.length(); i++) {
            char c = fqn.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == '.' && !quoted) {
                start = i + 1;
            }
        }
        return fqn.substring(start).replace("\"", "");
    }

    @Override
    public String kind() {
        return "airflow";
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
        return readAt(chunk, delivered, restarted, maxBytes);
    }

    private Page readAt(int chunk, int delivered, boolean restarted, long maxBytes) throws IOException {
        JsonNode body = fetch(chunk);
        if (body == null) {
            if (chunk == 0) {
                throw new MissingLogException("Airflow has no log chunk for this task yet.");
            }
            // the index is past total: a new try with fewer chunks, shown from its start
            return readAt(0, 0, true, maxBytes);
        }
        String content = body.path(settings.taskId()).asText("");
        if (content.length() < delivered) {
            // a new try wrote a shorter chunk: shown from its start
            return readAt(0, 0, true, maxBytes);
        }
        String before = chunk + ":" + delivered;
        int end = content.length();
        if (end - delivered > maxBytes) {
            end = (int) (delivered + Math.max(1, maxBytes));
            if (Character.isHighSurrogate(content.charAt(end - 1))) {
                end++;
            }
        }
        String fresh = content.substring(delivered, end);
        boolean chunkDone = end == content.length();
        JsonNode next = body.get("after");
        if (chunkDone && next != null && next.canConvertToInt() && next.asInt() > chunk) {
            return new Page(before, fresh, next.asInt() + ":0", true, restarted);
        }
        return new Page(before, fresh, chunk + ":" + end, !chunkDone, restarted);
    }

    /** Chunk {@code index}, or null when the plugin says the index is out of bounds. */
    private JsonNode fetch(int index) throws IOException {
        URI uri = URI.create(settings.url().toString().replaceAll("/+$", "") + "/" + settings.apiPath()
                + "/last_dag_logs?dag_id=" + encode(dagId) + "&task_id=" + encode(settings.taskId()) + "&after="
                + index);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(settings.timeout()).GET()
                .header("Content-Type", "application/json");
        if (settings.token() != null) {
            request.header("Authorization", "Bearer " + settings.token());
        } else if (settings.username() != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (settings.username() + ":" + settings.password()).getBytes(StandardCharsets.UTF_8)));
        }
        int status;
        String body;
        gate.enter();
        try {
            HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            status = response.statusCode();
            body = readBounded(response.body(), gate.limits().maxResponseBytes(), index);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading Airflow", e);
        } finally {
            gate.exit();
        }
        if (status == 401 || status == 403) {
            throw new SourceUnavailableException("Airflow refused the log of this pipeline (HTTP " + status
                    + "): check airflow.username/password or airflow.token.");
        }
        if (status == 404) {
            throw new MissingLogException("Airflow has no run of DAG " + dagId + " (HTTP 404).");
        }
        if (status == 400) {
            if (errorOf(body).contains(OUT_OF_BOUNDS)) {
                return null;
            }
            throw new MissingLogException("Airflow cannot fetch the log of task " + settings.taskId() + " of DAG "
                    + dagId + " yet (HTTP 400).");
        }
        if (status != 200) {
            throw new IOException("Airflow answered HTTP " + status + " for chunk " + index);
        }
        try {
            return Json.mapper().readTree(body);
        } catch (IOException e) {
            throw new IOException("Airflow sent a body that is not JSON", e);
        }
    }

    /** The body as UTF-8 text, read to at most {@code max} bytes: a larger one is not read further. */
    private static String readBounded(InputStream in, long max, int index) throws IOException {
        try (in) {
            byte[] bytes = in.readNBytes((int) Math.min(max + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > max) {
                throw new ReadLimitException.TooLarge("Airflow's answer for chunk " + index + " of this log is larger "
                        + "than airflow.maxResponseBytes = " + max + " bytes; raise it to read this log.");
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    private static String errorOf(String body) {
        try {
            return Json.mapper().readTree(body).path("error").asText("");
        } catch (IOException e) {
            return "";
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
