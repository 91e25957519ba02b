package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.Secrets;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.alerts.status.DeliveryStatusView;
import io.changestream.alerts.status.StatusSettings;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Serdes;
import io.javalin.Javalin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SubscriptionRoutesIT {

    private static final KafkaBroker BROKER = Brokers.shared();
    private static final String TOKEN = "test-token-0123456789";
    private static final String SECRET = "top-secret-key";

    private static String topic;
    private static SubscriptionStore store;
    private static Javalin app;
    private static final String GROUP = "routes-group";
    private static String ledger;
    private static String dlq;
    /** The group-wide view the service serves {@code /status} from, on its own ledger and DLQ topics. */
    private static DeliveryStatusView status;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        topic = "it-routes-subscriptions-" + UUID.randomUUID();
        BROKER.createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
        store = SubscriptionStore.start(SubscriptionStoreSettings.of(topic, BROKER.bootstrapServers()),
                FilterSettings.DEFAULTS);
        ledger = "it-routes-ledger-" + UUID.randomUUID();
        dlq = "it-routes-dlq-" + UUID.randomUUID();
        BROKER.createTopic(ledger, 1, Map.of());
        BROKER.createTopic(dlq, 1, Map.of());
        status = DeliveryStatusView.start(new StatusSettings(ledger, dlq, GROUP, 100, 1_000, Duration.ofSeconds(10)),
                Map.of("bootstrap.servers", BROKER.bootstrapServers()));
        DestinationRegistry registry = new DestinationRegistry(DestinationSettings.DEFAULTS, Clock.systemUTC(),
                new SimpleMeterRegistry(), null);
        SubscriptionRoutes routes = new SubscriptionRoutes(new SubscriptionService(new SubscriptionFactory(registry,
                FilterSettings.DEFAULTS, Clock.systemUTC()), store), new AdminApiSettings(TOKEN, "admin"), status);
        app = Javalin.create(routes::install).start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        app.stop();
        status.close();
        store.close();
    }

    private static HttpResponse<String> call(String method, String path, String body, String token)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port()
                        + SubscriptionRoutes.BASE + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> call(String method, String path, String body) throws Exception {
        return call(method, path, body, TOKEN);
    }

    @Test
    void withoutAValidTokenEverythingIs401() throws Exception {
        assertEquals(401, call("GET", "", null, null).statusCode());
        assertEquals(401, call("GET", "", null, "wrong-token-0123456789").statusCode());
        HttpResponse<String> post = call("POST", "", Requests.create("nope", "https://hooks.example.com/x"), null);
        assertEquals(401, post.statusCode());
        assertEquals("Bearer", post.headers().firstValue("WWW-Authenticate").orElse(null));
        assertTrue(store.byName("nope").isEmpty());
    }

    @Test
    void theWholeLifecycleWithThePlatformsJsonAndSecretsMasked() throws Exception {
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
                .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs =
                new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        root.addAppender(logs);
        try {
            lifecycle();
        } finally {
            root.detachAppender(logs);
        }
        for (ch.qos.logback.classic.spi.ILoggingEvent event : logs.list) {
            assertFalse(event.getFormattedMessage().contains(SECRET), event.getFormattedMessage());
            assertFalse(event.getThrowableProxy() != null
                    && event.getThrowableProxy().getMessage() != null
                    && event.getThrowableProxy().getMessage().contains(SECRET));
        }
    }

    private void lifecycle() throws Exception {
        HttpResponse<String> created = call("POST", "", Requests.create("lifecycle", "https://hooks.example.com/a"));
        assertEquals(201, created.statusCode(), created.body());
        JsonNode body = Requests.json(created.body());
        String id = body.get("id").asText();
        assertEquals("matchAnyEventType({'entityCreated','entityUpdated'})",
                body.get("filteringRules").get("rules").get(0).get("condition").asText());
        assertEquals(Secrets.MASK, body.get("destinations").get(0).get("config").get("secretKey").asText());
        assertFalse(created.body().contains(SECRET));

        HttpResponse<String> byId = call("GET", "/" + id, null);
        assertEquals(200, byId.statusCode());
        HttpResponse<String> byName = call("GET", "/name/lifecycle", null);
        assertEquals(id, Requests.json(byName.body()).get("id").asText());
        HttpResponse<String> list = call("GET", "", null);
        JsonNode page = Requests.json(list.body());
        assertTrue(page.get("paging").get("total").asInt() >= 1);
        for (HttpResponse<String> r : List.of(byId, byName, list)) {
            assertFalse(r.body().contains(SECRET), r.body());
        }

        // the platform's client: GET, change, PUT back (masked secret included)
        ObjectNode edited = (ObjectNode) Requests.json(byId.body());
        edited.put("description", "edited");
        HttpResponse<String> put = call("PUT", "", edited.toString());
        assertEquals(200, put.statusCode(), put.body());
        assertEquals("edited", Requests.json(put.body()).get("description").asText());
        assertEquals(SECRET, store.get(id).orElseThrow().subscription().destinations().get(0).config()
                .get("secretKey").asText(), "the masked value did not overwrite the secret");

        HttpResponse<String> deleted = call("DELETE", "/" + id, null);
        assertEquals(200, deleted.statusCode());
        assertFalse(deleted.body().contains(SECRET));
        assertEquals(404, call("GET", "/" + id, null).statusCode());
        assertEquals(404, call("DELETE", "/name/lifecycle", null).statusCode());
    }

    @Test
    void statusShowsEachDestinationsDeliveriesAndState() throws Exception {
        HttpResponse<String> created = call("POST", "", Requests.create("with-status", "https://hooks.example.com/q"));
        JsonNode body = Requests.json(created.body());
        String id = body.get("id").asText();
        String destination = body.get("destinations").get(0).get("id").asText();
        JsonNode fresh = Requests.json(call("GET", "/" + id + "/status", null).body()).get("destinations").get(0);
        assertEquals("active", fresh.get("status").asText());
        assertEquals(0, fresh.get("delivered").asInt());
        // what the group's instances write: two pairs settled in the ledger (the second after two tries), then a
        // dead letter with its retries used up
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            long now = System.currentTimeMillis();
            for (DeliveryRecord r : List.of(
                    new DeliveryRecord(GROUP, id, "e1", null, DeliveryRecord.DELIVERED, 1, now, "changes", 0, 1),
                    new DeliveryRecord(GROUP, id, "e2", null, DeliveryRecord.DELIVERED, 2, now + 1, "changes", 0, 2))) {
                producer.send(new ProducerRecord<>(ledger, LedgerRecords.keyOf(r), Serdes.deliveryRecord().toJson(r)))
                        .get();
            }
            FailedEvent dead = new FailedEvent(id, new ChangeEvent("e3", ChangeEvent.ENTITY_UPDATED, "table",
                    UUID.randomUUID().toString(), null, "svc.db.t", 0.1, 0.2, "alice", null, now, null, null, null),
                    "retries exhausted (3): HTTP 503", FailureSource.SUBSCRIBER, 0, 4, now + 2, destination);
            producer.send(new ProducerRecord<>(dlq, dead.key(), Serdes.failedEvent().toJson(dead))).get();
        }
        JsonNode first = Requests.json(call("GET", "/" + id + "/status", null).body()).get("destinations").get(0);
        assertEquals("Webhook", first.get("type").asText());
        assertEquals(destination, first.get("destinationId").asText());
        assertEquals("retryLimitReached", first.get("status").asText(), first.toString());
        assertEquals(2, first.get("delivered").asInt(), first.toString());
        assertEquals(1, first.get("deadLettered").asInt(), first.toString());
        assertEquals("retries exhausted (3): HTTP 503", first.get("lastFailedReason").asText());
        assertEquals(404, call("GET", "/" + UUID.randomUUID() + "/status", null).statusCode());
        assertEquals(401, call("GET", "/" + id + "/status", null, null).statusCode());
    }

    @Test
    void theSecretIsStoredButNeverServed() throws Exception {
        assertEquals(201, call("POST", "", Requests.create("stored-secret", "https://hooks.example.com/s"))
                .statusCode());
        List<ConsumerRecord<String, String>> records = KafkaTestClients.readAll(BROKER, topic, Duration.ofSeconds(5));
        assertTrue(records.stream().anyMatch(r -> r.value() != null && r.value().contains(SECRET)),
                "the topic holds the secret (deliveries need it)");
        EventSubscription stored = store.byName("stored-secret").orElseThrow().subscription();
        assertFalse(call("GET", "/" + stored.id(), null).body().contains(SECRET));
    }

    @Test
    void errorsAreThePlatformsShapeAndNameTheField() throws Exception {
        assertEquals(201, call("POST", "", Requests.create("taken", "https://hooks.example.com/t")).statusCode());
        HttpResponse<String> duplicate = call("POST", "", Requests.create("taken", "https://hooks.example.com/t"));
        assertEquals(409, duplicate.statusCode());
        assertEquals(409, Requests.json(duplicate.body()).get("code").asInt());

        HttpResponse<String> ssrf = call("POST", "", Requests.create("ssrf", "http://127.0.0.1:8080/x"));
        assertEquals(400, ssrf.statusCode());
        assertTrue(Requests.json(ssrf.body()).get("message").asText().startsWith("destinations[0].config.endpoint"),
                ssrf.body());

        HttpResponse<String> badExpression = call("POST", "", """
                {"name":"bad-expr","resources":["all"],"filteringRules":{"rules":[
                  {"name":"c","effect":"include","condition":"matchAnySource({'table') && isBot()"}]}}
                """);
        assertEquals(400, badExpression.statusCode());
        assertTrue(badExpression.body().contains("filteringRules.rules[0].condition"), badExpression.body());
        assertTrue(badExpression.body().contains("position"), badExpression.body());

        assertEquals(400, call("POST", "", "{not json").statusCode());
        HttpResponse<String> noName = call("POST", "", "{\"resources\":[\"all\"]}");
        assertTrue(Requests.json(noName.body()).get("message").asText().startsWith("name:"), noName.body());
        assertEquals(404, call("GET", "/name/missing", null).statusCode());
        assertEquals(404, call("PUT", "/" + UUID.randomUUID(), Requests.create("x", "https://e.x/h")).statusCode());
    }

    @Test
    void aPutThatMovesADestinationMustCarryItsSecretsAgain() throws Exception {
        HttpResponse<String> created = call("POST", "", Requests.create("moving", "https://hooks.example.com/m"));
        assertEquals(201, created.statusCode(), created.body());
        String id = Requests.json(created.body()).get("id").asText();
        ObjectNode edited = (ObjectNode) Requests.json(call("GET", "/" + id, null).body());
        ObjectNode config = (ObjectNode) edited.get("destinations").get(0).get("config");
        config.put("endpoint", "https://elsewhere.example.org/m"); // secretKey and headers stay masked

        for (String path : List.of("", "/" + id)) {
            HttpResponse<String> moved = call("PUT", path, edited.toString());
            assertEquals(400, moved.statusCode(), moved.body());
            String message = Requests.json(moved.body()).get("message").asText();
            assertTrue(message.startsWith("destinations[0].config.secretKey:"), message);
            assertTrue(message.contains("config.endpoint changed"), message);
        }
        ObjectNode retyped = (ObjectNode) Requests.json(call("GET", "/" + id, null).body());
        ((ObjectNode) retyped.get("destinations").get(0)).put("type", "Generic");
        HttpResponse<String> typeChanged = call("PUT", "", retyped.toString());
        assertEquals(400, typeChanged.statusCode(), typeChanged.body());
        assertTrue(typeChanged.body().contains("destinations[0].config.secretKey") && typeChanged.body()
                .contains("type changed"), typeChanged.body());
        JsonNode kept = store.get(id).orElseThrow().subscription().destinations().get(0).config();
        assertEquals("https://hooks.example.com/m", kept.get("endpoint").asText(), "nothing was stored");
        assertEquals(SECRET, kept.get("secretKey").asText());

        ObjectNode copied = edited.deepCopy(); // the masked view POSTed as a new subscription: no secret behind it
        copied.put("name", "moving-copy");
        copied.remove("id");
        ((ObjectNode) copied.get("destinations").get(0).get("config")).put("endpoint", "https://hooks.example.com/m");
        HttpResponse<String> copy = call("POST", "", copied.toString());
        assertEquals(400, copy.statusCode(), copy.body());
        assertTrue(Requests.json(copy.body()).get("message").asText().startsWith(
                "destinations[0].config.secretKey: is the masked value"), copy.body());
        assertTrue(store.byName("moving-copy").isEmpty());

        config.put("secretKey", "the-new-hosts-key");
        config.putObject("headers").put("X-Team", "data");
        HttpResponse<String> withSecrets = call("PUT", "", edited.toString());
        assertEquals(200, withSecrets.statusCode(), withSecrets.body());
        JsonNode moved = store.get(id).orElseThrow().subscription().destinations().get(0).config();
        assertEquals("https://elsewhere.example.org/m", moved.get("endpoint").asText());
        assertEquals("the-new-hosts-key", moved.get("secretKey").asText());
    }

    /** Issue 21: destination ids are the server's, unique across the service and stable across PUTs. */
    @Test
    void destinationIdsAreUniqueAcrossTheServiceAndStableAcrossPuts() throws Exception {
        ObjectNode request = (ObjectNode) Requests.json(Requests.create("ids-a", "https://hooks.example.com/i0"));
        com.fasterxml.jackson.databind.node.ArrayNode destinations = (com.fasterxml.jackson.databind.node.ArrayNode)
                request.get("destinations");
        ((ObjectNode) destinations.get(0)).remove("id");
        destinations.add(destinations.get(0).deepCopy());
        ((ObjectNode) destinations.get(1)).put("id", "fixed-1");
        ((ObjectNode) destinations.get(1).get("config")).put("endpoint", "https://hooks.example.com/i1");
        destinations.add(destinations.get(1).deepCopy());
        ((ObjectNode) destinations.get(2).get("config")).put("endpoint", "https://hooks.example.com/i2");

        HttpResponse<String> created = call("POST", "", request.toString());
        assertEquals(201, created.statusCode(), created.body());
        List<String> ids = destinationIds(created.body());
        assertEquals(3, new java.util.HashSet<>(ids).size(), "unique within the subscription: " + ids);
        assertEquals("fixed-1", ids.get(1), "a free id is kept");
        UUID.fromString(ids.get(0)); // made by the server, as the platform does
        assertEquals(ids, destinationIds(call("PUT", "", request.toString()).body()),
                "the same request PUT again keeps every id");
        HttpResponse<String> roundTrip = call("PUT", "", call("GET", "/name/ids-a", null).body());
        assertEquals(200, roundTrip.statusCode(), roundTrip.body());
        assertEquals(ids, destinationIds(roundTrip.body()), "GET then PUT keeps every id");

        request.put("name", "ids-b"); // a copy of ids-a: its ids belong to ids-a
        HttpResponse<String> copy = call("POST", "", request.toString());
        assertEquals(201, copy.statusCode(), copy.body());
        List<String> copyIds = destinationIds(copy.body());
        assertTrue(copyIds.stream().noneMatch(ids::contains), ids + " vs " + copyIds);
        assertEquals(copyIds, destinationIds(call("PUT", "", request.toString()).body()), "stable for the copy too");
        assertEquals(ids, destinationIds(call("GET", "/name/ids-a", null).body()), "ids-a keeps its own");
    }

    private static List<String> destinationIds(String body) {
        List<String> out = new java.util.ArrayList<>();
        Requests.json(body).get("destinations").forEach(d -> out.add(d.get("id").asText()));
        return out;
    }
}
