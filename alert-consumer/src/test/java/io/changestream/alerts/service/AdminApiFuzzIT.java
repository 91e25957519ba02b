package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.service.AlertTestSupport.Answer;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.testkit.Brokers;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Issue 12, the bad-input fuzz test of the admin API: requests generated around the platform's
 * CreateEventSubscription schema ({@code schemas/event-subscription.schema.json} of {@code topics}) — every
 * property drawn from its schema type or replaced by hostile JSON (wrong types, huge numbers, deep nesting, odd
 * strings), destination configs with private, NAT64 and malformed URLs and lineage topics — sent to one real service
 * with the SSRF guard on. Every answer is 2xx or 4xx with a message naming a field (never 5xx), and the service keeps
 * serving.
 */
class AdminApiFuzzIT {

    private static final String BASE = SubscriptionRoutes.BASE;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static AlertService service;
    private static JsonNode schema;
    private static Set<String> fields;

    @BeforeContainer
    static void start() throws IOException {
        try (InputStream in = TopicCatalog.class.getResourceAsStream("/schemas/event-subscription.schema.json")) {
            schema = Json.mapper().readTree(in);
        }
        fields = new TreeSet<>();
        schema.get("properties").fieldNames().forEachRemaining(fields::add);
        fields.addAll(List.of("body", "resources", "input", "filteringRules"));
        String namespace = AlertTestSupport.namespace("fuzz");
        AlertTestSupport.provision(Brokers.shared(), AlertTestSupport.catalog(namespace, 1));
        Map<String, String> settings = AlertTestSupport.settings(Brokers.shared(), namespace,
                "fuzz-" + UUID.randomUUID());
        settings.put("destinations.allowPrivateAddresses", "false");
        service = AlertService.start(AlertTestSupport.config(settings));
    }

    @AfterContainer
    static void stop() {
        if (service != null) {
            service.close();
        }
    }

    @Property(tries = 250, seed = "1212")
    void everyAnswerIs2xxOr4xxNamingAFieldAndTheServiceKeepsServing(@ForAll("requests") JsonNode request,
                                                                      @ForAll boolean put) {
        Answer answer = call(service.httpPort(), put ? "PUT" : "POST", BASE, request.toString());
        int status = answer.status();
        String firstWord = answer.body().replaceAll("^.*\"message\":\"([A-Za-z]+).*$", "$1");
        net.jqwik.api.statistics.Statistics.collect(status, status >= 400 ? firstWord : "");
        assertTrue(status >= 200 && status < 500 && !(status >= 300 && status < 400),
                status + " for " + request + ": " + answer.body());
        if (status >= 400) {
            String message = answer.json().path("message").asText();
            assertEquals(status, answer.json().path("code").asInt(), answer.body());
            assertTrue(namesAField(message), "no field named in '" + message + "' for " + request);
        } else {
            String id = answer.json().path("id").asText();
            assertEquals(200, call(service.httpPort(), "DELETE", BASE + "/" + id, null).status());
        }
        assertEquals(200, call(service.httpPort(), "GET", "/health/live", null, null).status());
    }

    @Property(tries = 60, seed = "1213")
    void garbageBodiesAre400NamingTheBody(@ForAll("garbage") String body) {
        Answer answer = call(service.httpPort(), "POST", BASE, body);
        assertTrue(answer.status() == 400 || answer.status() == 201 || answer.status() == 409,
                answer.status() + " for " + body + ": " + answer.body());
        if (answer.status() == 400) {
            assertTrue(namesAField(answer.json().path("message").asText()), answer.body());
        }
    }

    private static boolean namesAField(String message) {
        if (message.startsWith("eventSubscription with name")) {
            return true;
        }
        for (String field : fields) {
            if (message.startsWith(field) && message.length() > field.length()
                    && ":.[".indexOf(message.charAt(field.length())) >= 0) {
                return true;
            }
        }
        return false;
    }

    @Provide
    Arbitrary<String> garbage() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(50),
                Arbitraries.of("{", "}", "[]", "\"x\"", "1", "true", "null", "{\"a\":", "{\"name\":\"\\ud800\"}",
                        "\u0000", "{\"name\":1e999999}", "{\"name\":\"n\",\"resources\":[\"all\"]}{}"));
    }

    @Provide
    Arbitrary<JsonNode> requests() {
        List<Arbitrary<Map.Entry<String, JsonNode>>> entries = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> properties = schema.get("properties").fields();
        while (properties.hasNext()) {
            Map.Entry<String, JsonNode> property = properties.next();
            Arbitrary<JsonNode> value = "destinations".equals(property.getKey()) ? destinations()
                    : "name".equals(property.getKey()) ? names() : forSchema(property.getValue(), 2);
            entries.add(value.map(v -> Map.entry(property.getKey(), v)));
        }
        entries.add(Arbitraries.of("all", "table", "topic", "pipeline").list().ofMinSize(1).ofMaxSize(3)
                .map(list -> Map.entry("resources", (JsonNode) Json.mapper().valueToTree(list))));
        Arbitrary<List<Map.Entry<String, JsonNode>>> chosen = Combinators.combine(entries.stream()
                .map(e -> e.optional(0.35)).toList()).as(list -> list.stream().filter(java.util.Optional::isPresent)
                .map(java.util.Optional::get).toList());
        // a valid name and resources most of the time, so that the deeper fields are reached
        return Combinators.combine(chosen, names(), Arbitraries.integers().between(0, 9)).as((list, name, dice) -> {
            ObjectNode request = NODES.objectNode();
            if (dice > 0) {
                request.set("name", name);
                request.set("resources", NODES.arrayNode().add("all"));
            }
            list.forEach(e -> request.set(e.getKey(), e.getValue()));
            return request;
        });
    }

    private Arbitrary<JsonNode> names() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.strings().alpha().numeric().withChars("-_:. ").ofMinLength(1)
                        .ofMaxLength(40).map(s -> (JsonNode) NODES.textNode("fuzz-" + s))),
                net.jqwik.api.Tuple.of(1, Arbitraries.strings().ofMaxLength(300).map(s -> (JsonNode) NODES.textNode(s))),
                net.jqwik.api.Tuple.of(1, junk(1)));
    }

    private Arbitrary<JsonNode> destinations() {
        Arbitrary<JsonNode> url = Arbitraries.of("https://hooks.example.com/x", "http://127.0.0.1:8080/",
                "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a00:1::]/", "http://[::10.0.0.1]/", "http://198.18.0.1/",
                "ftp://example.com/", "not a url", "http://", "https://hooks.slack.com/services/T/B/s3cret",
                "http://exa mple.com/", "https://example.com:99999/").map(s -> (JsonNode) NODES.textNode(s));
        Arbitrary<JsonNode> config = Combinators.combine(url.optional(0.9), Arbitraries.of("http", "kafka", "smtp")
                        .optional(0.3), Arbitraries.of("cs.changes", "cs.subscriptions", "__consumer_offsets", "x")
                        .optional(0.3), junk(2).optional(0.2), Arbitraries.of("POST", "PUT", "GET", "").optional(0.2))
                .as((endpoint, transport, topic, headers, method) -> {
                    ObjectNode c = NODES.objectNode();
                    endpoint.ifPresent(e -> c.set("endpoint", e));
                    transport.ifPresent(t -> c.put("transport", t));
                    topic.ifPresent(t -> c.put("topic", t));
                    headers.ifPresent(h -> c.set("headers", h));
                    method.ifPresent(m -> c.put("httpMethod", m));
                    return (JsonNode) c;
                });
        JsonNode destinationSchema = schema.get("definitions").get("destination");
        Arbitrary<JsonNode> destination = Combinators.combine(forSchema(destinationSchema, 2),
                Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, config), net.jqwik.api.Tuple.of(1, junk(2))))
                .as((d, c) -> {
                    if (d instanceof ObjectNode object) {
                        object.set("config", c);
                    }
                    return d;
                });
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, destination.list().ofMaxSize(3)
                        .map(list -> (JsonNode) NODES.arrayNode().addAll(list))),
                net.jqwik.api.Tuple.of(1, junk(2)));
    }

    /** Values of a schema node, one in four replaced by hostile JSON. */
    private Arbitrary<JsonNode> forSchema(JsonNode node, int depth) {
        if (node.has("$ref")) {
            String name = node.get("$ref").asText().substring("#/definitions/".length());
            return forSchema(schema.get("definitions").get(name), depth);
        }
        Arbitrary<JsonNode> typed;
        String type = node.path("type").asText("");
        if (node.has("enum")) {
            List<JsonNode> values = new ArrayList<>();
            node.get("enum").forEach(values::add);
            typed = Arbitraries.of(values);
        } else if ("string".equals(type)) {
            typed = Arbitraries.strings().ofMaxLength(30).map(s -> (JsonNode) NODES.textNode(s));
        } else if ("integer".equals(type) || "number".equals(type)) {
            typed = Arbitraries.oneOf(Arbitraries.integers().between(-5, 5000).map(i -> (JsonNode) NODES.numberNode(i)),
                    Arbitraries.of(Long.MAX_VALUE, (long) Integer.MAX_VALUE + 1, -1L)
                            .map(i -> (JsonNode) NODES.numberNode(i)));
        } else if ("boolean".equals(type)) {
            typed = Arbitraries.of(true, false).map(b -> (JsonNode) NODES.booleanNode(b));
        } else if ("array".equals(type) && depth > 0) {
            Arbitrary<JsonNode> items = node.has("items") ? forSchema(node.get("items"), depth - 1) : junk(depth - 1);
            typed = items.list().ofMaxSize(3).map(list -> (JsonNode) NODES.arrayNode().addAll(list));
        } else if ("object".equals(type) && depth > 0 && node.has("properties")) {
            List<Arbitrary<Map.Entry<String, JsonNode>>> entries = new ArrayList<>();
            node.get("properties").fields().forEachRemaining(p -> entries.add(forSchema(p.getValue(), depth - 1)
                    .map(v -> Map.entry(p.getKey(), v))));
            typed = Combinators.combine(entries.stream().map(e -> e.optional(0.7)).toList()).as(list -> {
                ObjectNode object = NODES.objectNode();
                list.forEach(e -> e.ifPresent(x -> object.set(x.getKey(), x.getValue())));
                return (JsonNode) object;
            });
        } else {
            typed = junk(Math.max(0, depth - 1));
        }
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, typed), net.jqwik.api.Tuple.of(1, junk(depth)));
    }

    /** Hostile JSON: wrong types, huge and odd numbers, odd strings, nesting. */
    private Arbitrary<JsonNode> junk(int depth) {
        Arbitrary<JsonNode> leaf = Arbitraries.oneOf(
                Arbitraries.just(NODES.nullNode()),
                Arbitraries.of("", " ", "\u0000", "\ud83d\ude00", "'", "\"", "${x}", "a".repeat(2_000), "-1", "1e400",
                        "{'a'}", "matchAnySource({'table'})", "(.*.){10}Z").map(s -> (JsonNode) NODES.textNode(s)),
                Arbitraries.of(new BigDecimal("1e400"), new BigDecimal("-0.0"), new BigDecimal("3.5"),
                        new BigDecimal("123456789012345678901234567890")).map(d -> (JsonNode) NODES.numberNode(d)),
                Arbitraries.of(true, false).map(b -> (JsonNode) NODES.booleanNode(b)));
        if (depth <= 0) {
            return leaf;
        }
        Arbitrary<JsonNode> array = junk(depth - 1).list().ofMaxSize(3).map(l -> {
            ArrayNode a = NODES.arrayNode();
            a.addAll(l);
            return (JsonNode) a;
        });
        Arbitrary<JsonNode> object = Combinators.combine(Arbitraries.of("a", "name", "type", "config", "endpoint", ""),
                junk(depth - 1)).as((k, v) -> (JsonNode) NODES.objectNode().set(k, v));
        return Arbitraries.oneOf(leaf, array, object);
    }
}
