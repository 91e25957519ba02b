package io.changestream.ops.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A same-group offset reset against a real alert service and a real receiver: {@code offsets reset --execute
 * --skip-delivered} re-processes without sending anything already delivered; {@code offsets reset --execute} (the
 * reset marker in the ledger) re-delivers every event from the new position, with the same Idempotency-Keys.
 */
class ResetRedeliveryIT {

    private static final String TOKEN = "ops-reset-token-0123456789";
    private static final int EVENTS = 30;

    @Test
    void sameGroupResetRedeliversAndSkipDeliveredDoesNot(@TempDir Path dir) throws Exception {
        KafkaBroker broker = Brokers.shared();
        String ns = "rst" + UUID.randomUUID().toString().substring(0, 6) + ".";
        String group = "ops-reset-" + ns;
        TopicCatalog catalog = new TopicCatalog(ns).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 3);
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", ns);
        s.put("group.id", group);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        s.put("runtime.commitInterval", "200");
        AlertServiceConfig config = AlertServiceConfig.from(s, Map.of());
        Map<String, String> env = Map.of("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        try (DlqReplayIT.Receiver receiver = new DlqReplayIT.Receiver(200)) {
            List<String> ids = new ArrayList<>();
            try (AlertService service = AlertService.start(config)) {
                Files.writeString(dir.resolve("s.json"), """
                        {"name": "reset-all", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                         "resources": ["all"], "input": {"filters": [], "actions": []},
                         "destinations": [{"category": "External", "type": "Webhook", "timeout": 5,
                                           "readTimeout": 5, "config": {"endpoint": "%s"}}],
                         "retries": 3, "provider": "user"}""".formatted(receiver.url()));
                new SubscriptionsClient(URI.create("http://127.0.0.1:" + service.httpPort()), TOKEN,
                        Duration.ofSeconds(20)).apply(SubscriptionsClient.files(dir));
                List<ProducerRecord<String, String>> records = new ArrayList<>();
                for (int i = 0; i < EVENTS; i++) {
                    ChangeEvent e = new ChangeEvent(UUID.randomUUID().toString(), "entityUpdated", "table",
                            "t" + (i % 7), null, "svc.db.t" + i, 0.1, 0.2, "alice", null, System.currentTimeMillis(),
                            null, null, null);
                    ids.add(e.id());
                    records.add(new ProducerRecord<>(catalog.changes().name(), TopicKeys.change(e),
                            Serdes.changeEvent().toJson(e)));
                }
                KafkaTestClients.produce(broker, records);
                await().atMost(Duration.ofSeconds(60)).until(() -> receiver.keys.size() >= EVENTS);
                awaitNoLag(env, group);
            }
            assertEquals(EVENTS, receiver.keys.size());

            // --skip-delivered: the group reads everything again and sends nothing it already delivered
            Cli.Result skip = Cli.run(env, "offsets", "reset", "--group", group, "--topic", catalog.changes().name(),
                    "--to-earliest", "--execute", "--skip-delivered", "--namespace", ns);
            assertEquals(0, skip.code(), skip.out() + skip.err());
            assertTrue(skip.out().contains("no reset marker"), skip.out());
            try (AlertService service = AlertService.start(config)) {
                awaitNoLag(env, group);
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> true);
            }
            assertEquals(EVENTS, receiver.keys.size(), "--skip-delivered sends nothing twice");

            // a plain reset, no --namespace (issue 23: the markers went to cs.alert-ledger, nothing was re-delivered):
            // the marker in the ledger of the group's namespace makes it deliver everything again, with the same keys
            Cli.Result reset = Cli.run(env, "offsets", "reset", "--group", group, "--topic",
                    catalog.changes().name(), "--to-earliest", "--execute");
            assertEquals(0, reset.code(), reset.out() + reset.err());
            assertTrue(reset.out().contains("Wrote 3 reset marker(s) to " + catalog.alertLedger().name()),
                    reset.out());
            try (AlertService service = AlertService.start(config)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> receiver.keys.size() >= 2 * EVENTS);
                awaitNoLag(env, group);
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> true);
            }
            assertEquals(2 * EVENTS, receiver.keys.size(), "every event once more after the reset");
            assertEquals(new HashSet<>(receiver.keys.subList(0, EVENTS)),
                    new HashSet<>(receiver.keys.subList(EVENTS, 2 * EVENTS)), "the same Idempotency-Keys");
            assertEquals(EVENTS, new HashSet<>(receiver.keys).size());
        }
    }

    private static void awaitNoLag(Map<String, String> env, String group) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
            Cli.Result r = Cli.run(env, "offsets", "describe", "--group", group);
            return r.code() == 0 && r.out().contains("total lag 0.");
        });
    }
}
