package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code subscriptions apply|list} against a real alert service on the real broker. */
class SubscriptionsCommandIT {

    private static final String TOKEN = "ops-test-token-0123456789";
    private static AlertService service;

    @BeforeAll
    static void start() {
        KafkaBroker broker = Brokers.shared();
        String ns = "subs" + UUID.randomUUID().toString().substring(0, 6) + ".";
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(new TopicCatalog(ns).withReplicationFactor((short) 1)
                    .withPartitions(CatalogTopic.CHANGES, 2).all());
        }
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", ns);
        s.put("group.id", "ops-subs-" + ns);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        service = AlertService.start(AlertServiceConfig.from(s, Map.of()));
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
    }

    private static String subscription(String name) {
        return """
                {"name": "%s", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                 "resources": ["table"], "input": {"filters": [], "actions": []},
                 "destinations": [{"category": "External", "type": "Webhook", "timeout": 5, "readTimeout": 5,
                                   "config": {"endpoint": "http://127.0.0.1:9/hook", "secretKey": "hook-secret"}}],
                 "retries": 3, "provider": "user"}
                """.formatted(name);
    }

    private static Cli.Result run(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--url";
        all[args.length + 1] = "http://127.0.0.1:" + service.httpPort();
        all[args.length + 2] = "--timeout";
        all[args.length + 3] = "PT20S";
        return Cli.run(Map.of("CHANGESTREAM_ADMIN_TOKEN", TOKEN), all);
    }

    @Test
    void applyCreatesThenUpdatesAndListShowsThem(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.json"), subscription("ops-a"));
        Files.writeString(dir.resolve("b.json"), subscription("ops-b"));
        Files.writeString(dir.resolve("notes.txt"), "ignored");
        Cli.Result first = run("subscriptions", "apply", "-f", dir.toString());
        assertEquals(0, first.code(), first.err());
        assertEquals(2, first.out().lines().filter(l -> l.endsWith("created")).count(), first.out());
        Cli.Result again = run("subscriptions", "apply", "-f", dir.resolve("a.json").toString());
        assertEquals(0, again.code(), again.err());
        assertTrue(again.out().lines().anyMatch(l -> l.contains("ops-a") && l.endsWith("updated")), again.out());
        Cli.Result list = run("subscriptions", "list");
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().contains("ops-a") && list.out().contains("ops-b"), list.out());
        assertTrue(!list.out().contains("hook-secret"), list.out());
    }

    @Test
    void resumeByNameResumesEveryDestinationAndAnUnknownOneFails(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("r.json"), subscription("ops-resume"));
        assertEquals(0, run("subscriptions", "apply", "-f", dir.resolve("r.json").toString()).code());
        Cli.Result resumed = run("subscriptions", "resume", "ops-resume");
        assertEquals(0, resumed.code(), resumed.err());
        assertEquals(1, resumed.out().lines().filter(l -> l.contains("ops-resume") && l.endsWith("resumed")).count(),
                resumed.out());
        Cli.Result wrongDestination = run("subscriptions", "resume", "ops-resume", "--destination", "nope");
        assertEquals(1, wrongDestination.code(), wrongDestination.out());
        assertTrue(wrongDestination.err().contains("400") && wrongDestination.err().contains("destination"),
                wrongDestination.err());
        Cli.Result unknown = run("subscriptions", "resume", "no-such-subscription");
        assertEquals(1, unknown.code(), unknown.out());
        assertTrue(unknown.err().contains("404"), unknown.err());
    }

    @Test
    void invalidSubscriptionAndWrongTokenFail(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.json"), "{\"name\": \"x\", \"resources\": [\"all\"], \"alertType\": \"Nope\"}");
        Cli.Result bad = run("subscriptions", "apply", "-f", dir.resolve("bad.json").toString());
        assertEquals(1, bad.code(), bad.out());
        assertTrue(bad.err().contains("400"), bad.err());
        Cli.Result noToken = Cli.run(Map.of(), "subscriptions", "list", "--url",
                "http://127.0.0.1:" + service.httpPort());
        assertEquals(2, noToken.code(), noToken.err());
        Cli.Result wrong = Cli.run(Map.of(), "subscriptions", "list", "--token", "wrong-token-0123456789",
                "--url", "http://127.0.0.1:" + service.httpPort());
        assertEquals(1, wrong.code(), wrong.err());
        assertTrue(wrong.err().contains("401"), wrong.err());
    }
}
