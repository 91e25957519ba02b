package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for the platform's REST API, answering as its UserResource and TeamResource document:
 * {@code GET /api/v1/users/{id}}, {@code /api/v1/users/name/{name}}, {@code /api/v1/teams/{id}},
 * {@code /api/v1/teams/name/{name}} (the entity JSON, or 404 with {@code {"code":404,"message":…}}), and
 * {@code GET /api/v1/users?isAdmin=true&limit=…&after=…} ({@code {"data":[…],"paging":{"after":…,"total":…}}},
 * at most {@code limit} per page, {@code after} absent on the last page). Requires the bearer token (401 without).
 * {@link #unavailable(boolean)} makes it answer 503 to everything.
 */
public final class PlatformStandIn implements AutoCloseable {

    public static final String TOKEN = "platform-bot-jwt-0123456789";

    private final HttpServer server;
    private final Map<String, ObjectNode> users = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> teams = new ConcurrentHashMap<>();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean unavailable;

    public PlatformStandIn() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/api/v1/", this::handle);
        server.start();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** Adds a user; returns its id. */
    public String user(String name, String email, boolean admin) {
        String id = java.util.UUID.nameUUIDFromBytes(("user-" + name).getBytes()).toString();
        ObjectNode user = Json.mapper().createObjectNode().put("id", id).put("name", name)
                .put("fullyQualifiedName", name).put("email", email).put("isAdmin", admin).put("deleted", false);
        users.put(id, user);
        return id;
    }

    /** Adds a team with its own e-mail; returns its id. */
    public String team(String name, String email) {
        String id = java.util.UUID.nameUUIDFromBytes(("team-" + name).getBytes()).toString();
        ObjectNode team = Json.mapper().createObjectNode().put("id", id).put("name", name)
                .put("fullyQualifiedName", name).put("teamType", "Group").put("deleted", false);
        if (email != null) {
            team.put("email", email);
        }
        teams.put(id, team);
        return id;
    }

    public PlatformStandIn unavailable(boolean down) {
        unavailable = down;
        return this;
    }

    /** API calls answered so far. */
    public int calls() {
        return calls.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        calls.incrementAndGet();
        try (exchange) {
            if (unavailable) {
                reply(exchange, 503, error(503, "service unavailable"));
                return;
            }
            if (!("Bearer " + TOKEN).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                reply(exchange, 401, error(401, "Not Authorized! Token not present"));
                return;
            }
            String path = exchange.getRequestURI().getRawPath();
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            String[] p = path.substring("/api/v1/".length()).split("/");
            Map<String, ObjectNode> kind = p[0].equals("users") ? users : p[0].equals("teams") ? teams : null;
            if (kind == null) {
                reply(exchange, 404, error(404, "no such resource"));
            } else if (p.length == 1) {
                list(exchange, kind, query);
            } else {
                String key = URLDecoder.decode(p[p.length - 1], StandardCharsets.UTF_8);
                ObjectNode found = p.length == 3 && p[1].equals("name")
                        ? kind.values().stream().filter(e -> e.get("name").asText().equals(key)).findFirst()
                        .orElse(null) : kind.get(key);
                if (found == null) {
                    reply(exchange, 404, error(404, p[0].substring(0, p[0].length() - 1) + " instance for " + key
                            + " not found"));
                } else {
                    reply(exchange, 200, found.toString());
                }
            }
        }
    }

    private static void list(HttpExchange exchange, Map<String, ObjectNode> kind, Map<String, String> query)
            throws IOException {
        int limit = Integer.parseInt(query.getOrDefault("limit", "10"));
        List<ObjectNode> all = new ArrayList<>(kind.values().stream()
                .filter(e -> !query.containsKey("isAdmin")
                        || e.path("isAdmin").asBoolean() == Boolean.parseBoolean(query.get("isAdmin")))
                .sorted((a, b) -> a.get("name").asText().compareTo(b.get("name").asText())).toList());
        int from = query.containsKey("after") ? Integer.parseInt(new String(java.util.Base64.getDecoder()
                .decode(query.get("after")), StandardCharsets.UTF_8)) : 0;
        int to = Math.min(all.size(), from + limit);
        ObjectNode page = Json.mapper().createObjectNode();
        ArrayNode data = page.putArray("data");
        all.subList(from, to).forEach(data::add);
        ObjectNode paging = page.putObject("paging").put("total", all.size());
        if (to < all.size()) {
            paging.put("after", java.util.Base64.getEncoder().encodeToString(Integer.toString(to)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        reply(exchange, 200, page.toString());
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static String error(int code, String message) {
        return Json.mapper().createObjectNode().put("code", code).put("message", message).toString();
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}
