package io.changestream.bench.alerts;

import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * One local alert service as the alert benchmarks run it: its topics (replication factor 1, twelve partitions of
 * {@code changes}), its settings (loopback HTTP on any port, private receiver addresses allowed, the bench's admin
 * token) and the admin REST calls that create and resume webhook subscriptions. Static helpers, called from a
 * benchmark's main thread.
 */
public final class AlertBenchSupport {

    /** The admin bearer token of every bench instance. */
    public static final String TOKEN = "bench-token-0123456789abcdef";
    /** Partitions of {@code changes} in every bench namespace. */
    public static final int CHANGES_PARTITIONS = 12;

    private AlertBenchSupport() {
    }

    /** Creates every topic of namespace {@code ns} on {@code broker}; returns its catalog. */
    public static TopicCatalog provision(KafkaBroker broker, String ns) {
        TopicCatalog catalog = new TopicCatalog(ns).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, CHANGES_PARTITIONS);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        return catalog;
    }

    /** The settings of a bench instance (a mutable map: a bench adds its own). */
    public static Map<String, String> settings(KafkaBroker broker, String ns, String group) {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", ns);
        s.put("group.id", group);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        s.putAll(overrides(System.getProperty(OVERRIDES, "")));
        return s;
    }

    /** System property with service settings a run overrides ({@code key=value;key=value}: a bench's {@code --set}). */
    public static final String OVERRIDES = "bench.alerts.settings";

    static Map<String, String> overrides(String spec) {
        Map<String, String> out = new HashMap<>();
        for (String kv : spec.split(";")) {
            if (kv.isBlank()) {
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(OVERRIDES + ": '" + kv + "' is not key=value");
            }
            out.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return out;
    }

    /**
     * Creates a real-time webhook subscription matching every event, posting to {@code endpoint}; {@code retries}
     * null leaves the service's default. Returns the subscription's id; throws unless the service answers 201.
     */
    public static String subscribe(int port, String name, String endpoint, Integer retries) throws Exception {
        return subscribe(port, name, List.of(webhook(endpoint, null, null)), retries);
    }

    /**
     * A webhook destination's JSON for {@link #subscribe(int, String, List, Integer)}: its {@code endpoint}, more
     * config fields ({@code "delivery": "atMostOnce"}, without braces) and the destination's own fields
     * ({@code "timeout": 10, "readTimeout": 20}), each null for none.
     */
    public static String webhook(String endpoint, String config, String fields) {
        return "{\"category\": \"External\", \"type\": \"Webhook\", \"config\": {\"endpoint\": \"" + endpoint + "\""
                + (config == null ? "" : ", " + config) + "}" + (fields == null ? "" : ", " + fields) + "}";
    }

    /**
     * Creates a real-time subscription matching every event with the given destinations (JSON objects, see
     * {@link #webhook}); {@code retries} null leaves the service's default. Returns the subscription's id; throws
     * unless the service answers 201.
     */
    public static String subscribe(int port, String name, List<String> destinations, Integer retries)
            throws Exception {
        return subscribe(port, name, destinations, retries, null);
    }

    /**
     * {@link #subscribe(int, String, List, Integer)} for the events matching a filter {@code condition} in the
     * platform's language (null: every event).
     */
    public static String subscribe(int port, String name, List<String> destinations, Integer retries,
                                   String condition) throws Exception {
        String filter = condition == null ? "\"resources\": [\"all\"], \"input\": {\"filters\": [], \"actions\": []},"
                : "\"filteringRules\": {\"resources\": [\"all\"], \"rules\": [{\"name\": \"only\", \"effect\": \"include\", "
                + "\"condition\": \"" + condition.replace("\\", "\\\\") + "\"}]},";
        String body = """
                {"name": "%s", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                 %s%s
                 "destinations": [%s]}
                """.formatted(name, filter, retries == null ? "" : " \"retries\": " + retries + ",",
                String.join(", ", destinations));
        HttpResponse<String> r = call(port, "POST", "/api/v1/events/subscriptions", body);
        if (r.statusCode() != 201) {
            throw new IllegalStateException("subscription not created: " + r.statusCode() + " " + r.body());
        }
        return r.body().replaceAll("(?s).*?\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
    }

    /** Resumes subscription {@code id} (its destinations' retry path drains); throws unless the answer is 200. */
    public static void resume(int port, String id) throws Exception {
        HttpResponse<String> r = call(port, "POST", "/api/v1/events/subscriptions/" + id + "/resume", null);
        if (r.statusCode() != 200) {
            throw new IllegalStateException("resume failed: " + r.statusCode() + " " + r.body());
        }
    }

    /** One admin call to the service on {@code port} with the bench token; {@code body} null sends none. */
    public static HttpResponse<String> call(int port, String method, String path, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
