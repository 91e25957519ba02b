package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import io.changestream.ops.service.StopSignal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.JaasUtils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka client properties pass through to the launcher's clients: a private single-node broker whose only client
 * listener is SASL_PLAINTEXT with the PLAIN mechanism (Kafka's own test kit, users of {@link JaasUtils}).
 */
class SaslClientIT {

    private static KafkaClusterTestKit cluster;

    @BeforeAll
    static void start() throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .build();
        cluster = new KafkaClusterTestKit.Builder(nodes)
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setDeleteOnClose(true)
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, String> env(String user, String password) {
        Map<String, String> env = new HashMap<>();
        env.put("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers());
        env.put("CHANGESTREAM_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
        env.put("CHANGESTREAM_KAFKA_SASL_MECHANISM", "PLAIN");
        env.put("CHANGESTREAM_KAFKA_SASL_JAAS_CONFIG", "org.apache.kafka.common.security.plain.PlainLoginModule "
                + "required username=\"" + user + "\" password=\"" + password + "\";");
        return env;
    }

    @Test
    void commandsAuthenticateWithPropertiesFromTheEnvironment() {
        Cli.Result apply = Cli.run(env(JaasUtils.KAFKA_PLAIN_ADMIN, JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD),
                "topics", "apply", "--namespace", "sasl.", "--replication-factor", "1", "--changes-partitions", "2");
        assertEquals(0, apply.code(), apply.err());
        assertTrue(apply.out().contains("sasl.changes"), apply.out());
    }

    @Test
    void commandsAuthenticateWithACommandConfigFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + JaasUtils.KAFKA_PLAIN_ADMIN + "\" password=\""
                + JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD + "\";\n");
        Cli.Result describe = Cli.run(Map.of(), "offsets", "describe", "--group", "nobody",
                "--bootstrap-server", cluster.bootstrapServers(), "--command-config", file.toString());
        assertEquals(0, describe.code(), describe.err());
        assertTrue(describe.out().contains("Consumer group 'nobody'"), describe.out());
    }

    @Test
    void theAlertServiceRunsFromTheLauncherWithKafkaPropertiesPassedThrough(@TempDir Path dir) throws Exception {
        Map<String, String> admin = env(JaasUtils.KAFKA_PLAIN_ADMIN, JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD);
        Cli.Result apply = Cli.run(admin, "topics", "apply", "--namespace", "saslalerts.", "--replication-factor", "1",
                "--changes-partitions", "2");
        assertEquals(0, apply.code(), apply.err());
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("alerts.properties");
        Files.writeString(config, "kafka.bootstrap.servers=" + cluster.bootstrapServers() + "\n"
                + "kafka.security.protocol=SASL_PLAINTEXT\nkafka.sasl.mechanism=PLAIN\n"
                + "topics.namespace=saslalerts.\nhttp.host=127.0.0.1\nhttp.port=" + port + "\n"
                + "group.id=sasl-alerts\nadmin.bearerToken=sasl-admin-token-0123456789\n");
        // the JAAS secret comes from the environment, as in production
        Map<String, String> env = Map.of("ALERTS_KAFKA_SASL_JAAS_CONFIG", admin.get("CHANGESTREAM_KAFKA_SASL_JAAS_CONFIG"));
        StopSignal stop = StopSignal.manual();
        java.io.StringWriter out = new java.io.StringWriter();
        java.util.concurrent.CompletableFuture<Integer> running = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> new Launcher(env, java.time.Clock.systemUTC(), () -> stop).run(new java.io.PrintWriter(out),
                        new java.io.PrintWriter(new java.io.StringWriter()), "alerts", "--config", config.toString()));
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(90)).until(
                    () -> out.toString().contains("alert-consumer started") || running.isDone());
            assertTrue(out.toString().contains("alert-consumer started"), out.toString());
            Cli.Result list = Cli.run(Map.of("CHANGESTREAM_ADMIN_TOKEN", "sasl-admin-token-0123456789"),
                    "subscriptions", "list", "--url", "http://127.0.0.1:" + port);
            assertEquals(0, list.code(), list.err());
        } finally {
            stop.release();
        }
        assertEquals(0, running.get(60, java.util.concurrent.TimeUnit.SECONDS), out.toString());
    }

    @Test
    void wrongPasswordFailsWithExitOneAndNoSecretInTheMessage() {
        Cli.Result r = Cli.run(env(JaasUtils.KAFKA_PLAIN_ADMIN, "wrong-secret"),
                "topics", "describe", "--timeout", "PT10S");
        assertNotEquals(0, r.code());
        assertEquals(1, r.code(), r.err());
        assertTrue(!r.err().contains("wrong-secret"), r.err());
        assertTrue(r.err().toLowerCase().contains("authentication"), r.err());
    }
}
