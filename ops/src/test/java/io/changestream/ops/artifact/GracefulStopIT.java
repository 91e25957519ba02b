package io.changestream.ops.artifact;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.HangingHttpServer;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop of the shipped jar stays within its bound with a hanging receiver configured (issue 23): the alert
 * service runs from {@code changestream.jar} with a healthy webhook and one whose receiver accepts the connection and
 * never answers, events flow, and a SIGTERM must end the process with status 0 within {@code runtime.closeTimeout}
 * (the documented bound of the whole stop, decision 2302) plus the JVM's own exit. Nothing is lost: after a restart of the jar the healthy
 * receiver has every event exactly once across both runs, and the hanging destination's pairs were not dead-lettered
 * (the stop cancelled them; the next run takes them up again).
 */
class GracefulStopIT {

    private static final String TOKEN = "graceful-stop-token-0123456789";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** What the JVM may take beyond the service's stop: its exit, on a machine the build shares. */
    private static final Duration EXIT_SLACK = Duration.ofSeconds(2);
    private static final int EVENTS = 20;

    private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
    private final LoopbackHttpServer healthy = LoopbackHttpServer.start(64, exchange -> {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.computeIfAbsent(Json.mapper().readTree(body).get("id").asText(), id -> new AtomicInteger())
                    .incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
        }
    });
    private final HangingHttpServer hanging = new HangingHttpServer();
    private ShippedJar service;

    @AfterEach
    void stop() throws InterruptedException {
        if (service != null) {
            service.close();
        }
        healthy.close();
        hanging.close();
    }

    @Test
    void sigtermWithAHangingReceiverExitsWithinTheCloseTimeoutAndLosesNothing(@TempDir Path dir) throws Exception {
        KafkaBroker broker = Brokers.shared();
        String ns = "stop" + UUID.randomUUID().toString().substring(0, 6) + ".";
        TopicCatalog catalog = new TopicCatalog(ns).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 2).withPartitions(CatalogTopic.PIPELINE_STATUS, 2);
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        String settings = settings(broker, ns);
        service = ShippedJar.start(dir, "first", settings);
        Map<String, String> ids = applySubscriptions(dir.resolve("subscriptions"), service.port());
        List<String> events = IntStream.range(0, EVENTS).mapToObj(i -> UUID.randomUUID().toString()).toList();

        // the first half is delivered and the hanging receiver holds requests; the second half is on its way
        produce(broker, catalog, events.subList(0, EVENTS / 2));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(
                received.keySet().containsAll(events.subList(0, EVENTS / 2)) && hanging.requests() > 0,
                "healthy " + received.size() + ", hanging " + hanging.requests() + ": " + service.log()));
        produce(broker, catalog, events.subList(EVENTS / 2, EVENTS));
        assertStopsInTime(service, "the first run");

        // a restart of the jar delivers what the first run did not, once
        int hangingBefore = hanging.requests();
        service = ShippedJar.start(dir, "second", settings);
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertEquals(Set.copyOf(events),
                received.keySet(), "after the restart: " + counts()));
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(
                received.values().stream().allMatch(n -> n.get() == 1), "every event exactly once: " + counts()));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(hanging.requests() > hangingBefore,
                "the second run takes the hanging destination's pairs up again"));
        JsonNode stuck = status(service.port(), ids.get("hanging")).at("/destinations/0");
        assertEquals(0, stuck.path("deadLettered").asLong(), "a stop loses no pair: " + stuck);
        assertEquals(List.of(), KafkaTestClients.readAll(broker, catalog.alertDlq().name(), Duration.ofSeconds(5)),
                "nothing dead-lettered");
        assertStopsInTime(service, "the second run"); // its hanging pairs in flight again
    }

    /** SIGTERM: exit status 0 within runtime.closeTimeout and the JVM's exit. */
    private static void assertStopsInTime(ShippedJar jar, String which) throws Exception {
        ShippedJar.Stop stop = jar.stop(CLOSE_TIMEOUT.multipliedBy(6));
        System.out.println("graceful stop of " + which + " with a hanging receiver took " + stop.took().toMillis()
                + " ms; its log:\n" + jar.log());
        assertEquals(0, stop.exitStatus(), "a graceful stop exits 0: " + jar.log());
        assertTrue(stop.took().compareTo(CLOSE_TIMEOUT.plus(EXIT_SLACK)) <= 0, "the stop of " + which + " took "
                + stop.took() + ", more than runtime.closeTimeout " + CLOSE_TIMEOUT + " + " + EXIT_SLACK + ": "
                + jar.log());
    }

    private Map<String, Integer> counts() {
        return new TreeMap<>(received.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                e -> e.getValue().get())));
    }

    private static void produce(KafkaBroker broker, TopicCatalog catalog, List<String> ids) {
        KafkaTestClients.produce(broker, ids.stream().map(id -> {
            ChangeEvent e = new ChangeEvent(id, ChangeEvent.ENTITY_UPDATED, "table",
                    UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8)).toString(), null,
                    "svc.db.public.t" + id.substring(0, 4), 0.1, 0.2, "alice", null, System.currentTimeMillis(),
                    null, null, null);
            return new ProducerRecord<>(catalog.changes().name(), TopicKeys.change(e), Serdes.changeEvent().toJson(e));
        }).toList());
    }

    private static String settings(KafkaBroker broker, String ns) {
        return String.join("\n",
                "kafka.bootstrap.servers=" + broker.bootstrapServers(),
                "topics.namespace=" + ns,
                "group.id=graceful-stop-" + ns,
                "http.host=127.0.0.1",
                "http.port=0",
                "admin.bearerToken=" + TOKEN,
                "destinations.allowPrivateAddresses=true",
                "runtime.commitInterval=200",
                "runtime.closeTimeout=" + CLOSE_TIMEOUT,
                "");
    }

    /** The healthy webhook and the hanging one (its answer may take 25 s, longer than the test's stop waits). */
    private Map<String, String> applySubscriptions(Path dir, int port) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("healthy.json"), subscription("healthy", healthy.url("/healthy")));
        Files.writeString(dir.resolve("hanging.json"), subscription("hanging", hanging.url("/hanging")));
        List<SubscriptionsClient.Applied> applied = new SubscriptionsClient(URI.create("http://127.0.0.1:" + port),
                TOKEN, Duration.ofSeconds(20)).apply(SubscriptionsClient.files(dir));
        return applied.stream().collect(Collectors.toMap(SubscriptionsClient.Applied::name,
                SubscriptionsClient.Applied::id));
    }

    private static String subscription(String name, String endpoint) {
        return """
                {"name": "%s", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                 "resources": ["table"], "input": {"filters": [], "actions": []},
                 "destinations": [{"category": "External", "type": "Webhook", "timeout": 5, "readTimeout": 20,
                   "config": {"endpoint": "%s"}}], "retries": 3, "provider": "user"}
                """.formatted(name, endpoint);
    }

    /** {@code GET …/{id}/status}, as a user reads it. */
    private static JsonNode status(int port, String id) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + port + "/api/v1/events/subscriptions/" + id + "/status"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return Json.mapper().readTree(r.body());
    }
}
