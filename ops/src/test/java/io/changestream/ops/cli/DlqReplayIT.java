package io.changestream.ops.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Serdes;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DLQ replay end to end: a real alert service, a receiver that refuses (400, dead-lettered) and then accepts; after
 * {@code dlq replay --execute} the dead-lettered alert is delivered through the normal path.
 */
class DlqReplayIT {

    private static final String TOKEN = "ops-replay-token-0123456789";

    /** A webhook receiver answering {@code status} and recording Idempotency-Keys. */
    static final class Receiver implements AutoCloseable {
        final HttpServer server;
        final AtomicInteger status = new AtomicInteger(200);
        final List<String> keys = new CopyOnWriteArrayList<>();

        Receiver(int status) throws Exception {
            this.status.set(status);
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
            server.createContext("/", ex -> {
                try (ex) {
                    ex.getRequestBody().readAllBytes();
                    int s = this.status.get();
                    if (s == 200) {
                        keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
                    }
                    ex.sendResponseHeaders(s, -1);
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private static String subscription(String name, String url) {
        return """
                {"name": "%s", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                 "resources": ["table"], "input": {"filters": [], "actions": []},
                 "destinations": [{"category": "External", "type": "Webhook", "timeout": 5, "readTimeout": 5,
                                   "config": {"endpoint": "%s"}}],
                 "retries": 0, "provider": "user"}
                """.formatted(name, url);
    }

    @Test
    void replayedDeadLetterIsDeliveredOnceThroughTheNormalPathEvenWhenReplayedTwice(@TempDir Path dir) throws Exception {
        KafkaBroker broker = Brokers.shared();
        String ns = "rep" + UUID.randomUUID().toString().substring(0, 6) + ".";
        TopicCatalog catalog = new TopicCatalog(ns).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 2);
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", ns);
        s.put("group.id", "ops-replay-" + ns);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        s.put("runtime.commitInterval", "200");
        try (Receiver refusing = new Receiver(400); Receiver healthy = new Receiver(200);
             AlertService service = AlertService.start(AlertServiceConfig.from(s, Map.of()))) {
            Files.writeString(dir.resolve("a.json"), subscription("replay-a", refusing.url()));
            Files.writeString(dir.resolve("b.json"), subscription("replay-b", healthy.url()));
            List<SubscriptionsClient.Applied> applied = new SubscriptionsClient(
                    URI.create("http://127.0.0.1:" + service.httpPort()), TOKEN, Duration.ofSeconds(20))
                    .apply(SubscriptionsClient.files(dir));
            String a = applied.get(0).id();

            ChangeEvent event = new ChangeEvent(UUID.randomUUID().toString(), "entityUpdated", "table", "t1", null,
                    "svc.db.t1", 0.1, 0.2, "alice", null, System.currentTimeMillis(), null, null, null);
            KafkaTestClients.produce(broker, List.of(new ProducerRecord<>(catalog.changes().name(),
                    TopicKeys.change(event), Serdes.changeEvent().toJson(event))));
            await().atMost(Duration.ofSeconds(60)).until(() -> healthy.keys.size() == 1
                    && KafkaTestClients.readAll(broker, catalog.alertDlq().name(), Duration.ofSeconds(10)).size() == 1);
            assertTrue(refusing.keys.isEmpty());

            refusing.status.set(200);
            Map<String, String> env = Map.of("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
            Cli.Result listed = Cli.run(env, "dlq", "list", "--namespace", ns, "--subscription", a);
            assertTrue(listed.out().contains("1 dead letter(s)."), listed.out() + listed.err());
            Cli.Result replayed = Cli.run(env, "dlq", "replay", "--namespace", ns, "--subscription", a, "--execute");
            assertEquals(0, replayed.code(), replayed.err());

            await().atMost(Duration.ofSeconds(60)).until(() -> refusing.keys.size() == 1);
            assertEquals(a + ":" + event.id(), refusing.keys.get(0), "the Idempotency-Key of the original pair");

            // the same replay run again: the pair is delivered now, so nothing is sent a second time
            Cli.Result again = Cli.run(env, "dlq", "replay", "--namespace", ns, "--subscription", a, "--execute");
            assertEquals(0, again.code(), again.err());
            await().atMost(Duration.ofSeconds(30)).until(() -> KafkaTestClients.readAll(broker,
                    catalog.changes().name(), Duration.ofSeconds(5)).size() == 3);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> true);
            assertEquals(1, refusing.keys.size(), "a DLQ replay run twice delivers once: " + refusing.keys);
            assertEquals(1, healthy.keys.size(), "the other subscription is not sent the replays");
        }
    }
}
