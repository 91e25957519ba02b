package io.changestream.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for the platform's REST API, answering as its resources document:
 * <ul>
 *   <li>UserResource and TeamResource: {@code GET /api/v1/users/{id}}, {@code /api/v1/users/name/{name}},
 *       {@code /api/v1/teams/{id}}, {@code /api/v1/teams/name/{name}} (the entity JSON, or 404 with
 *       {@code {"code":404,"message":…}}), and {@code GET /api/v1/users?isAdmin=true&limit=…&after=…}
 *       ({@code {"data":[…],"paging":{"after":…,"total":…}}}, at most {@code limit} per page, {@code after} absent on
 *       the last page);</li>
 *   <li>IngestionPipelineResource: {@code GET /api/v1/services/ingestionPipelines/name/{fqn}} (with
 *       {@code pipelineType}, {@code service} as an entity reference, {@code sourceConfig}, {@code owners},
 *       {@code tags});</li>
 *   <li>the data-asset resources: {@code GET /api/v1/{tables|dashboards|topics|pipelines|…}/name/{fqn}} (with
 *       {@code owners} as entity references and {@code tags} as tag labels), their lists filtered by
 *       {@code ?service=} (by {@code ?database=} for tables) and {@code GET /api/v1/databases?service=};</li>
 *   <li>LineageResource: {@code GET /api/v1/lineage/{entityType}/name/{fqn}?upstreamDepth=&downstreamDepth=}
 *       ({@code EntityLineage}: {@code entity}, {@code nodes}, {@code upstreamEdges}, {@code downstreamEdges} of
 *       {@code {fromEntity, toEntity}} ids, as deep as asked), 404 for an unknown entity.</li>
 * </ul>
 * Requires the bearer token (401 without). Shared by the alert service's tests and the shipped jar's (ops), which
 * is why it lives in the test kit: plain Jackson, nothing of ours.
 * {@link #unavailable(boolean)} makes it answer 503 to everything,
 * {@link #latency(Duration)} answer every request after a delay.
 */
public final class PlatformStandIn implements AutoCloseable {

    public static final String TOKEN = "platform-bot-jwt-0123456789";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpServer server;
    private final Map<String, ObjectNode> users = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> teams = new ConcurrentHashMap<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger lineageCalls = new AtomicInteger();
    /** Data assets and ingestion pipelines by "collection/fqn". */
    private final Map<String, ObjectNode> assets = new ConcurrentHashMap<>();
    /** Downstream edges: from id → to ids. */
    private final Map<String, List<String>> edges = new ConcurrentHashMap<>();
    private volatile boolean unavailable;
    private volatile Duration latency = Duration.ZERO;

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
        ObjectNode user = MAPPER.createObjectNode().put("id", id).put("name", name)
                .put("fullyQualifiedName", name).put("email", email).put("isAdmin", admin).put("deleted", false);
        users.put(id, user);
        return id;
    }

    /** Adds a team with its own e-mail; returns its id. */
    public String team(String name, String email) {
        String id = java.util.UUID.nameUUIDFromBytes(("team-" + name).getBytes()).toString();
        ObjectNode team = MAPPER.createObjectNode().put("id", id).put("name", name)
                .put("fullyQualifiedName", name).put("teamType", "Group").put("deleted", false);
        if (email != null) {
            team.put("email", email);
        }
        teams.put(id, team);
        return id;
    }

    /** Every answer after this delay (the platform slow). */
    public PlatformStandIn latency(Duration delay) {
        latency = delay;
        return this;
    }

    /**
     * Adds an ingestion pipeline {@code <service>.<name>} of a service.
     *
     * @param serviceType the platform's service entity type ({@code databaseService}, {@code dashboardService}, …)
     * @param tags        its tag FQNs
     */
    public void ingestionPipeline(String fqn, String pipelineType, String serviceType, String service,
                                  String... tags) {
        ObjectNode p = entity(fqn, fqn.substring(fqn.indexOf('.') + 1), List.of(), List.of(tags));
        p.put("pipelineType", pipelineType);
        p.putObject("service").put("id", java.util.UUID.nameUUIDFromBytes(service.getBytes()).toString())
                .put("type", serviceType).put("name", service).put("fullyQualifiedName", service);
        p.putObject("sourceConfig").putObject("config");
        assets.put("services/ingestionPipelines/" + fqn, p);
    }

    /** Adds a test-suite pipeline whose table under test is {@code table}. */
    public void testSuitePipeline(String fqn, String table) {
        ingestionPipeline(fqn, "TestSuite", "databaseService", fqn.substring(0, fqn.indexOf('.')));
        ((ObjectNode) assets.get("services/ingestionPipelines/" + fqn).get("sourceConfig").get("config"))
                .put("entityFullyQualifiedName", table);
    }

    /** Adds a database of a database service. */
    public void database(String service, String fqn) {
        ObjectNode db = entity(fqn, fqn, List.of(), List.of());
        db.putObject("service").put("name", service);
        assets.put("databases/" + fqn, db);
    }

    /**
     * Adds a data asset; returns its id.
     *
     * @param type   the entity type ({@code table}, {@code dashboard}, {@code topic}, …)
     * @param owners user or team names already added ({@code team:name} for a team)
     * @param tags   tag FQNs ({@code Tier.Tier1})
     */
    public String asset(String type, String fqn, List<String> owners, String... tags) {
        ObjectNode a = entity(fqn, fqn.substring(fqn.lastIndexOf('.') + 1), owners, List.of(tags));
        if (type.equals("table")) {
            String db = fqn.substring(0, fqn.indexOf('.', fqn.indexOf('.') + 1));
            a.putObject("database").put("fullyQualifiedName", db);
        }
        a.put("entityType", type);
        assets.put(collection(type) + "/" + fqn, a);
        return a.get("id").asText();
    }

    /** A lineage edge from one asset down to another (ids from {@link #asset}). */
    public void edge(String fromId, String toId) {
        edges.computeIfAbsent(fromId, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(toId);
    }

    /** Lineage API calls answered so far. */
    public int lineageCalls() {
        return lineageCalls.get();
    }

    private ObjectNode entity(String fqn, String name, List<String> owners, List<String> tags) {
        String id = java.util.UUID.nameUUIDFromBytes(("asset-" + fqn).getBytes()).toString();
        ObjectNode e = MAPPER.createObjectNode().put("id", id).put("name", name)
                .put("fullyQualifiedName", fqn).put("deleted", false);
        ArrayNode ownerRefs = e.putArray("owners");
        for (String owner : owners) {
            boolean team = owner.startsWith("team:");
            String ownerName = team ? owner.substring(5) : owner;
            ObjectNode ref = (team ? teams : users).values().stream()
                    .filter(u -> u.get("name").asText().equals(ownerName)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no such owner " + owner));
            ownerRefs.addObject().put("id", ref.get("id").asText()).put("type", team ? "team" : "user")
                    .put("name", ownerName).put("fullyQualifiedName", ownerName);
        }
        ArrayNode labels = e.putArray("tags");
        for (String tag : tags) {
            labels.addObject().put("tagFQN", tag).put("source", tag.contains("Glossary") ? "Glossary"
                    : "Classification").put("labelType", "Manual").put("state", "Confirmed");
        }
        return e;
    }

    private static String collection(String type) {
        return switch (type) {
            case "searchIndex" -> "searchIndexes";
            case "dashboardDataModel" -> "dashboard/datamodels";
            default -> type + "s";
        };
    }

    private static ObjectNode reference(ObjectNode entity) {
        return MAPPER.createObjectNode().put("id", entity.get("id").asText())
                .put("type", entity.path("entityType").asText("table")).put("name", entity.get("name").asText())
                .put("fullyQualifiedName", entity.get("fullyQualifiedName").asText());
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
            Duration delay = latency;
            if (!delay.isZero()) {
                try {
                    Thread.sleep(delay.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            String path = exchange.getRequestURI().getRawPath();
            Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
            String[] p = path.substring("/api/v1/".length()).split("/");
            if (!p[0].equals("users") && !p[0].equals("teams")) {
                assetRoute(exchange, path.substring("/api/v1/".length()), query);
                return;
            }
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

    private void assetRoute(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        if (path.startsWith("lineage/")) {
            lineageCalls.incrementAndGet();
            String[] p = path.split("/", 4);
            if (p.length < 4 || !p[2].equals("name")) {
                reply(exchange, 404, error(404, "no such resource"));
                return;
            }
            lineage(exchange, p[1], URLDecoder.decode(p[3], StandardCharsets.UTF_8),
                    Integer.parseInt(query.getOrDefault("downstreamDepth", "1")));
            return;
        }
        int name = path.indexOf("/name/");
        if (name >= 0) {
            String fqn = URLDecoder.decode(path.substring(name + "/name/".length()), StandardCharsets.UTF_8);
            ObjectNode found = assets.get(path.substring(0, name) + "/" + fqn);
            if (found == null) {
                reply(exchange, 404, error(404, "entity instance for " + fqn + " not found"));
            } else {
                reply(exchange, 200, found.toString());
            }
            return;
        }
        String prefix = path + "/";
        int limit = Integer.parseInt(query.getOrDefault("limit", "10"));
        List<ObjectNode> all = assets.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)
                        && e.getKey().indexOf('/', prefix.length()) < 0)
                .map(Map.Entry::getValue)
                .filter(e -> !query.containsKey("service")
                        || query.get("service").equals(e.path("service").path("name").asText(null))
                        || e.get("fullyQualifiedName").asText().startsWith(query.get("service") + "."))
                .filter(e -> !query.containsKey("database")
                        || query.get("database").equals(e.path("database").path("fullyQualifiedName").asText(null)))
                .sorted((a, b) -> a.get("fullyQualifiedName").asText().compareTo(b.get("fullyQualifiedName").asText()))
                .toList();
        ObjectNode page = MAPPER.createObjectNode();
        ArrayNode data = page.putArray("data");
        all.subList(0, Math.min(limit, all.size())).forEach(data::add);
        ObjectNode paging = page.putObject("paging").put("total", all.size());
        if (limit < all.size()) {
            paging.put("after", java.util.Base64.getEncoder().encodeToString(Integer.toString(limit)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        reply(exchange, 200, page.toString());
    }

    private void lineage(HttpExchange exchange, String type, String fqn, int depth) throws IOException {
        ObjectNode root = assets.get(collection(type) + "/" + fqn);
        if (root == null) {
            reply(exchange, 404, error(404, type + " instance for " + fqn + " not found"));
            return;
        }
        Map<String, ObjectNode> byId = new java.util.HashMap<>();
        assets.values().forEach(a -> byId.put(a.get("id").asText(), a));
        ObjectNode answer = MAPPER.createObjectNode();
        answer.set("entity", reference(root));
        ArrayNode nodes = answer.putArray("nodes");
        answer.putArray("upstreamEdges");
        ArrayNode down = answer.putArray("downstreamEdges");
        java.util.Set<String> seen = new java.util.HashSet<>(List.of(root.get("id").asText()));
        List<String> frontier = List.of(root.get("id").asText());
        for (int d = 0; d < depth && !frontier.isEmpty(); d++) {
            List<String> next = new ArrayList<>();
            for (String from : frontier) {
                for (String to : edges.getOrDefault(from, List.of())) {
                    down.addObject().put("fromEntity", from).put("toEntity", to);
                    if (seen.add(to)) {
                        nodes.add(reference(byId.get(to)));
                        next.add(to);
                    }
                }
            }
            frontier = next;
        }
        reply(exchange, 200, answer.toString());
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
        ObjectNode page = MAPPER.createObjectNode();
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
        return MAPPER.createObjectNode().put("code", code).put("message", message).toString();
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
