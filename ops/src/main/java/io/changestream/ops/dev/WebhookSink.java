package io.changestream.ops.dev;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.changestream.ops.OpsException;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo webhook receiver: accepts every POST with 200 and prints one line per delivery (event type, entity,
 * Idempotency-Key), counting deliveries and repeated keys; POSTs to {@link #LINEAGE_PATH} are OpenLineage run events
 * (printed as {@code lineage <- …} and counted apart). Its HTTP threads (a small fixed pool) call {@link #handle};
 * counters are safe to read from any thread.
 */
public final class WebhookSink implements AutoCloseable {

    private static final Pattern FIELD = Pattern.compile("\"(eventType|entityType|entityFullyQualifiedName)\"\\s*:"
            + "\\s*\"([^\"]*)\"");
    /** Path of the OpenLineage endpoint. */
    static final String LINEAGE_PATH = "/lineage";
    /** Largest body read from one request. */
    static final int MAX_BODY_BYTES = 1 << 20;

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "dev-webhook-sink");
        t.setDaemon(true);
        return t;
    });
    private final PrintWriter out;
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong repeated = new AtomicLong();
    private final AtomicLong lineage = new AtomicLong();
    private final Set<String> keys = ConcurrentHashMap.newKeySet();

    private final String advertised;

    private WebhookSink(HttpServer server, PrintWriter out, String advertised) {
        this.server = server;
        this.out = out;
        this.advertised = advertised;
    }

    /** Starts the sink on loopback {@code port} (0 = any free port), printing deliveries to {@code out}. */
    public static WebhookSink start(int port, PrintWriter out) {
        return start("127.0.0.1", port, null, out);
    }

    /**
     * Starts the sink on {@code bindHost:port}, printing deliveries to {@code out}.
     *
     * @param advertisedHost the host the alert service reaches the sink by (e.g. a compose service name), or null
     *                       for the bind address
     */
    public static WebhookSink start(String bindHost, int port, String advertisedHost, PrintWriter out) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(bindHost, port), 128);
            WebhookSink sink = new WebhookSink(server, out, advertisedHost == null ? bindHost : advertisedHost);
            server.createContext("/", sink::handle);
            server.setExecutor(sink.executor);
            server.start();
            return sink;
        } catch (IOException e) {
            throw new OpsException("the demo webhook sink could not listen on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** The URL subscriptions deliver to. */
    public String url() {
        return "http://" + advertised + ":" + server.getAddress().getPort() + "/webhook";
    }

    /** The URL OpenLineage destinations post run events to. */
    public String lineageUrl() {
        return "http://" + advertised + ":" + server.getAddress().getPort() + LINEAGE_PATH;
    }

    /** OpenLineage requests received. */
    public long lineageReceived() {
        return lineage.get();
    }

    /** Deliveries received. */
    public long received() {
        return received.get();
    }

    /** Deliveries whose Idempotency-Key had been seen before (at-least-once duplicates). */
    public long repeated() {
        return repeated.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            String body = new String(in.readNBytes(MAX_BODY_BYTES), StandardCharsets.UTF_8);
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            if (LINEAGE_PATH.equals(exchange.getRequestURI().getPath())) {
                lineage.incrementAndGet();
                print("lineage <- " + runEvent(body), key, false);
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            received.incrementAndGet();
            boolean again = key != null && !keys.add(key);
            if (again) {
                repeated.incrementAndGet();
            }
            StringBuilder line = new StringBuilder("webhook <- ");
            Matcher m = FIELD.matcher(body);
            while (m.find()) {
                line.append(m.group(2)).append(' ');
            }
            print(line.toString(), key, again);
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /** {@code <eventType> <job name> } of an OpenLineage run event, or empty for a body that is none. */
    private static String runEvent(String body) {
        try {
            JsonNode event = Json.mapper().readTree(body);
            return event.path("eventType").asText() + " " + event.path("job").path("name").asText() + " ";
        } catch (IOException e) {
            return "";
        }
    }

    /** Prints one line: {@code start}, then the Idempotency-Key. */
    private void print(String start, String key, boolean again) {
        synchronized (out) {
            out.println(start + "Idempotency-Key=" + key + (again ? " (repeat)" : ""));
            out.flush();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
