package io.changestream.logs.http;

import io.changestream.logs.engine.EventFrames;
import io.changestream.logs.engine.LogMetrics.Refusal;
import io.changestream.logs.engine.StreamSettings;
import io.changestream.logs.engine.TailerManager;
import io.changestream.logs.engine.Viewer;
import io.changestream.logs.limits.CallerQuotas;
import io.changestream.logs.source.LogSource;
import io.changestream.logs.source.MissingLogException;
import io.changestream.logs.source.Page;
import io.changestream.logs.source.PathNames;
import io.changestream.logs.source.ReadLimitException;
import io.changestream.logs.source.SourceResolver;
import io.changestream.logs.source.SourceUnavailableException;
import io.changestream.web.BearerTokens;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.Connection;

/**
 * The platform-compatible log endpoints under {@value #PATH}:
 * <ul>
 * <li>{@code GET {fqn}/stream/{runId}?after=} — the SSE stream: 200 committed at once, 404 only for an unknown
 * pipeline, every later failure an {@code error} event. Streams whether or not the client sent
 * {@code Accept: text/event-stream} (browsers do, {@code curl -N} does not).</li>
 * <li>{@code GET {fqn}/last?runId=&after=} — one page as JSON: {@code runId, logs, after, more, truncated}.</li>
 * <li>{@code GET {fqn}/last/download?runId=} — the whole run as {@code text/plain}, streamed page by page.</li>
 * <li>{@code GET {fqn}/runs?limit=} — the pipeline's recent runs, newest first: {@code {"runs": [{runId, modified,
 * source, live}]}} (storage and object storage — a run with only {@code partial.txt} is {@code live} — plus the
 * status view's newest run).</li>
 * </ul>
 * A stream past one of the caller's {@link io.changestream.logs.limits.CallerLimits} is a 429 naming the setting,
 * before anything is committed. A paging read past a backend's read limits is a 503 ({@code maxConcurrentReads}) or
 * 413 ({@code maxResponseBytes}) naming the setting. A client's mistake is a 4xx naming the parameter, never a 500: unsafe names 400, unknown pipeline or run 404, a
 * newest run from the status view that is not a safe name falls back to the newest stored run.
 * {@code {fqn}} is the FQN or a configured id; no or a wrong bearer token gives 401 before anything opens. A plain
 * servlet (not a Javalin route) so the stream is written with non-blocking output; Jetty request threads call it.
 */
public final class LogsApiServlet extends HttpServlet {

    /** The servlet's path prefix. */
    public static final String PATH = "/api/v1/services/ingestionPipelines/logs";
    private static final long serialVersionUID = 1L;
    private static final int HTTP_2 = 20;
    private static final int MAX_CURSOR_LENGTH = 64;
    private static final int DEFAULT_RUNS = 20;
    private static final int MAX_RUNS = 200;
    private static final String RETRY_AFTER_SECONDS = "5";

    private final transient BearerTokens auth;
    private final transient PipelineRegistry registry;
    private final transient SourceResolver sources;
    private final transient TailerManager manager;
    private final transient CallerQuotas quotas;

    /** The endpoints over these parts; {@code quotas} bounds each caller's streams. */
    public LogsApiServlet(BearerTokens auth, PipelineRegistry registry, SourceResolver sources, TailerManager manager,
                          CallerQuotas quotas) {
        this.auth = auth;
        this.registry = registry;
        this.sources = sources;
        this.manager = manager;
        this.quotas = quotas;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        try {
            route(req, resp);
        } catch (IllegalArgumentException e) {
            // a name or parameter a check above missed: still the client's mistake, and the message names it
            if (resp.isCommitted()) {
                throw e;
            }
            error(resp, 400, e.getMessage() == null ? "bad request" : e.getMessage());
        }
    }

    private void route(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!auth.allows(req.getHeader("Authorization"))) {
            resp.setHeader("WWW-Authenticate", BearerTokens.CHALLENGE);
            error(resp, 401, "A valid bearer token is required.");
            return;
        }
        String path = req.getPathInfo() == null ? "" : req.getPathInfo();
        String[] parts = path.startsWith("/") ? path.substring(1).split("/", -1) : new String[0];
        if (parts.length == 3 && parts[1].equals("stream")) {
            stream(req, resp, parts[0], parts[2]);
        } else if (parts.length == 2 && parts[1].equals("last")) {
            last(req, resp, parts[0], false);
        } else if (parts.length == 3 && parts[1].equals("last") && parts[2].equals("download")) {
            last(req, resp, parts[0], true);
        } else if (parts.length == 2 && parts[1].equals("runs")) {
            runs(req, resp, parts[0]);
        } else {
            error(resp, 404, "No such endpoint.");
        }
    }

    private void stream(HttpServletRequest req, HttpServletResponse resp, String fqnOrId, String runId)
            throws IOException {
        Optional<String> fqn = knownPipeline(resp, fqnOrId, firstProblem(fqnOrId, runId));
        if (fqn.isEmpty()) {
            return;
        }
        String after = blankToNull(req.getParameter("after"));
        CallerQuotas.Grant grant = quotas.acquire(BearerTokens.token(req.getHeader("Authorization")),
                req.getRemoteAddr(), fqn.get() + "/" + runId);
        if (!grant.granted()) {
            manager.metrics().refused(Refusal.CALLER_LIMIT);
            resp.setHeader("Retry-After", RETRY_AFTER_SECONDS);
            error(resp, 429, grant.refusal());
            return;
        }
        Viewer viewer;
        try {
            resp.setStatus(200);
            resp.setContentType("text/event-stream;charset=utf-8");
            resp.setHeader("Cache-Control", "no-cache");
            resp.setHeader("X-Accel-Buffering", "no");
            AsyncContext async = req.startAsync();
            async.setTimeout(0);
            resp.flushBuffer();
            ServletSink sink = new ServletSink(async, closer(req));
            StreamSettings settings = manager.settings();
            viewer = new Viewer(runId, sink, settings.maxPendingBytesPerClient(), manager.metrics());
            viewer.alsoOnGone(grant.lease()::release);
            sink.start(viewer);
        } catch (IOException | RuntimeException e) {
            grant.lease().release();
            throw e;
        }
        Optional<LogSource> source = sources.resolve(fqn.get(), runId);
        if (source.isEmpty()) {
            manager.refuse(viewer, after, "No log backend holds run " + runId + " of pipeline " + fqn.get()
                    + ". Configure storage.root, s3.bucket or airflow.url.", Refusal.NO_BACKEND);
            return;
        }
        manager.open(fqn.get(), runId, source.get(), after, viewer);
    }

    private void last(HttpServletRequest req, HttpServletResponse resp, String fqnOrId, boolean download)
            throws IOException {
        String requestedRun = blankToNull(req.getParameter("runId"));
        String problem = firstProblem(fqnOrId, requestedRun == null ? "x" : requestedRun);
        if (problem != null) {
            error(resp, 400, problem);
            return;
        }
        String after = blankToNull(req.getParameter("after"));
        if (after != null && after.length() > MAX_CURSOR_LENGTH) {
            error(resp, 400, "after is longer than " + MAX_CURSOR_LENGTH + " characters");
            return;
        }
        Optional<String> fqn = registry.resolve(fqnOrId);
        Optional<String> runId = fqn.flatMap(f -> requestedRun != null ? Optional.of(requestedRun)
                : registry.latestRun(f));
        Optional<LogSource> source = runId.flatMap(r -> sources.resolve(fqn.get(), r));
        if (source.isEmpty()) {
            error(resp, 404, fqn.isEmpty() ? "Unknown ingestion pipeline " + fqnOrId + "."
                    : "No logs for this pipeline run.");
            return;
        }
        StreamSettings settings = manager.settings();
        try (LogSource opened = source.get()) {
            if (download) {
                download(resp, fqn.get(), runId.get(), opened, settings);
                return;
            }
            Page page = opened.read(after, settings.linesPerRead(), settings.maxBytesPerTick());
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("runId", runId.get());
            body.put("logs", page.text());
            body.put("after", page.cursorAfter());
            body.put("more", page.more());
            body.put("truncated", page.restarted());
            json(resp, 200, body);
        } catch (ReadLimitException.TooLarge e) {
            error(resp, 413, e.getMessage());
        } catch (SourceUnavailableException e) {
            error(resp, 410, e.getMessage());
        } catch (MissingLogException e) {
            if (resp.isCommitted()) {
                throw e;
            }
            error(resp, 404, "No logs for this pipeline run: " + e.getMessage());
        } catch (ReadLimitException.Busy e) {
            if (resp.isCommitted()) {
                throw e;
            }
            resp.setHeader("Retry-After", RETRY_AFTER_SECONDS);
            error(resp, 503, e.getMessage());
        } catch (IOException e) {
            if (resp.isCommitted()) {
                throw e;
            }
            error(resp, 503, "The log backend is not answering; retry shortly.");
        }
    }

    private void runs(HttpServletRequest req, HttpServletResponse resp, String fqnOrId) throws IOException {
        String problem = PathNames.problem("pipeline fqn", fqnOrId);
        int limit = DEFAULT_RUNS;
        String given = blankToNull(req.getParameter("limit"));
        if (given != null) {
            try {
                limit = Integer.parseInt(given);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (problem == null && (limit < 1 || limit > MAX_RUNS)) {
                problem = "limit must be a whole number in [1, " + MAX_RUNS + "], was '" + given + "'";
            }
        }
        Optional<String> fqn = knownPipeline(resp, fqnOrId, problem);
        if (fqn.isEmpty()) {
            return;
        }
        List<Map<String, Object>> runs = new ArrayList<>();
        registry.recentRuns(fqn.get(), limit).forEach(run -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("runId", run.runId());
            row.put("modified", run.modified() == null ? null : run.modified().toString());
            row.put("source", run.source());
            row.put("live", run.live());
            runs.add(row);
        });
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("pipelineFqn", fqn.get());
        body.put("runs", runs);
        json(resp, 200, body);
    }

    private static void download(HttpServletResponse resp, String fqn, String runId, LogSource source,
                                 StreamSettings settings) throws IOException {
        resp.setStatus(200);
        resp.setContentType("text/plain;charset=utf-8");
        resp.setHeader("Content-Disposition", "attachment; filename=\"" + (fqn + "-" + runId)
                .replaceAll("[^A-Za-z0-9._-]", "_") + ".log\"");
        OutputStream out = resp.getOutputStream();
        String cursor = null;
        while (true) {
            Page page = source.read(cursor, settings.linesPerRead(), settings.maxBytesPerTick());
            out.write(page.text().getBytes(StandardCharsets.UTF_8));
            if (!page.more() || page.cursorAfter().equals(page.cursorBefore())) {
                break;
            }
            cursor = page.cursorAfter();
        }
        out.flush();
    }

    /** Closes this request's HTTP/1 connection at once (SSE runs over HTTP/1; HTTP/2 streams are left alone). */
    private static Runnable closer(HttpServletRequest req) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(req);
        if (jetty == null || jetty.getConnectionMetaData().getHttpVersion().getVersion() >= HTTP_2) {
            return () -> { };
        }
        Connection connection = jetty.getConnectionMetaData().getConnection();
        return () -> connection.getEndPoint().close();
    }

    /** The pipeline's FQN, or empty after answering 400 ({@code problem} set) or 404 (unknown pipeline). */
    private Optional<String> knownPipeline(HttpServletResponse resp, String fqnOrId, String problem)
            throws IOException {
        if (problem != null) {
            error(resp, 400, problem);
            return Optional.empty();
        }
        Optional<String> fqn = registry.resolve(fqnOrId);
        if (fqn.isEmpty()) {
            error(resp, 404, "Unknown ingestion pipeline " + fqnOrId + ".");
        }
        return fqn;
    }

    private static String firstProblem(String fqn, String runId) {
        String problem = PathNames.problem("pipeline fqn", fqn);
        return problem != null ? problem : PathNames.problem("run id", runId);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** The platform's error body {@code {"code": status, "message": ...}}. */
    private static void error(HttpServletResponse resp, int status, String message) throws IOException {
        json(resp, status, Map.of("code", status, "message", message));
    }

    private static void json(HttpServletResponse resp, int status, Map<String, ?> body) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/json;charset=utf-8");
        resp.getOutputStream().write(EventFrames.json(body).getBytes(StandardCharsets.UTF_8));
    }
}
