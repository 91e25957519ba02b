package io.changestream.logs.source;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local HTTP server reproducing the platform's Airflow plugin endpoint byte for byte
 * ({@code openmetadata_managed_apis/operations/last_dag_logs.py} answered through {@code ApiResponse}, i.e. Flask's
 * {@code jsonify}: compact separators, sorted keys, non-ASCII escaped as {@code \\uXXXX}, a trailing newline,
 * {@code application/json}):
 * <ul>
 * <li>404 {@code {"error":"DAG <dag> not found."}} for an unknown DAG, {@code No DAG run found for <dag>.} without
 * runs;</li>
 * <li>400 {@code Can't fetch logs for DAG <dag> and Task <task>.} when the task has no log chunks;</li>
 * <li>400 {@code After index <after> is out of bounds. Total pagination is <total> for DAG <dag> and Task <task>.};</li>
 * <li>200 {@code {"<task>":"<chunk>","after":i+1,"total":N}} ({@code after} only while {@code i < total-1}).</li>
 * </ul>
 * Airflow's API auth in front: basic ({@code user:pass}) or a bearer token; anything else 401. The DAG's last run is
 * a list of chunks the test grows, replaces (a new try) or shrinks. Thread-safe.
 */
public final class AirflowPluginServer implements AutoCloseable {

    /** Accepted basic credentials. */
    public static final String USER = "admin";
    /** Accepted basic password. */
    public static final String PASSWORD = "admin-pass";
    /** Accepted bearer token. */
    public static final String TOKEN = "airflow-jwt";

    private final HttpServer server;
    private final Map<String, Map<String, List<String>>> dags = new HashMap<>();
    /** Every {@code after} asked, in order. */
    public final List<Integer> asked = new CopyOnWriteArrayList<>();
    /** Delay before each answer (a slow Airflow). */
    public volatile long delayMillis;

    /** Starts on a free port. */
    public AirflowPluginServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/openmetadata/last_dag_logs", this::handle);
        server.start();
    }

    /** Airflow's base URL ({@code airflow.url}). */
    public URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Appends {@code text} to the last chunk of {@code dag}'s {@code task} (creating the DAG run and chunk). */
    public synchronized void append(String dag, String task, String text) {
        List<String> chunks = chunks(dag, task);
        if (chunks.isEmpty()) {
            chunks.add("");
        }
        chunks.set(chunks.size() - 1, chunks.get(chunks.size() - 1) + text);
    }

    /** Starts a new chunk holding {@code text}. */
    public synchronized void newChunk(String dag, String task, String text) {
        chunks(dag, task).add(text);
    }

    /** A new try of the task: its log is now exactly {@code chunks}. */
    public synchronized void newTry(String dag, String task, String... chunks) {
        List<String> list = chunks(dag, task);
        list.clear();
        list.addAll(List.of(chunks));
    }

    /** Registers a DAG with no run. */
    public synchronized void dagWithoutRuns(String dag) {
        dags.put(dag, null);
    }

    private List<String> chunks(String dag, String task) {
        Map<String, List<String>> run = dags.get(dag);
        if (run == null) {
            run = new HashMap<>();
            dags.put(dag, run);
        }
        return run.computeIfAbsent(task, t -> new ArrayList<>());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (delayMillis > 0) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            String basic = "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD)
                    .getBytes(StandardCharsets.UTF_8));
            if (!basic.equals(auth) && !("Bearer " + TOKEN).equals(auth)) {
                send(exchange, 401, Map.of("error", "Not authorized to access this resource"));
                return;
            }
            Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
            String dag = q.get("dag_id");
            String task = q.get("task_id");
            String after = q.get("after");
            synchronized (this) {
                if (!dags.containsKey(dag)) {
                    send(exchange, 404, Map.of("error", "DAG " + dag + " not found."));
                    return;
                }
                Map<String, List<String>> run = dags.get(dag);
                if (run == null) {
                    send(exchange, 404, Map.of("error", "No DAG run found for " + dag + "."));
                    return;
                }
                List<String> logs = run.getOrDefault(task, List.of());
                if (logs.isEmpty()) {
                    send(exchange, 400, Map.of("error", "Can't fetch logs for DAG " + dag + " and Task " + task
                            + "."));
                    return;
                }
                int total = logs.size();
                int index = after == null ? 0 : Integer.parseInt(after);
                asked.add(index);
                if (index >= total) {
                    send(exchange, 400, Map.of("error", "After index " + after + " is out of bounds. Total pagination"
                            + " is " + total + " for DAG " + dag + " and Task " + task + "."));
                    return;
                }
                Map<String, Object> body = new HashMap<>();
                body.put(task, logs.get(index));
                body.put("total", total);
                if (index < total - 1) {
                    body.put("after", index + 1);
                }
                send(exchange, 200, body);
            }
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    /** Flask's {@code jsonify} in production: {@code json.dumps(obj, separators=(",", ":"), sort_keys=True)} + "\n". */
    static String jsonify(Map<String, ?> body) {
        StringBuilder out = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, ?> e : new TreeMap<>(body).entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            string(out, e.getKey());
            out.append(':');
            if (e.getValue() instanceof Number n) {
                out.append(n);
            } else {
                string(out, String.valueOf(e.getValue()));
            }
        }
        return out.append("}\n").toString();
    }

    /** Python's {@code json} string encoding with {@code ensure_ascii=True}. */
    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void send(HttpExchange exchange, int status, Map<String, ?> body) throws IOException {
        byte[] bytes = jsonify(body).getBytes(StandardCharsets.US_ASCII);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
