package io.changestream.ops.cli;

import io.changestream.ops.kafka.KafkaClientProperties;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Option;

/**
 * The Kafka connection options shared by the cluster commands, named as in Kafka's own tools. Every other client
 * property (TLS, SASL, …) comes from {@code --command-config} or {@code CHANGESTREAM_KAFKA_*} variables.
 */
final class KafkaOptions {

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (default: $CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS).")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Properties file of Kafka client settings (security.protocol, sasl.*, ssl.*, ...).")
    Path commandConfig;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT30S",
            description = "Bound on each request to the cluster (ISO-8601, default ${DEFAULT-VALUE}).")
    Duration timeout;

    KafkaClientProperties properties(Map<String, String> env) {
        return KafkaClientProperties.resolve(commandConfig, env, bootstrapServer);
    }

    Admin admin(Map<String, String> env) {
        int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        return Admin.create(properties(env).with(Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.CLIENT_ID_CONFIG, "changestream-ops")));
    }
}
