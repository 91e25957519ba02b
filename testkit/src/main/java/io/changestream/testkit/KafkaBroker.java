package io.changestream.testkit;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * A running Kafka cluster that tests talk to: the in-JVM broker by default, Testcontainers' Kafka
 * module with {@code -Dchangestream.test.kafka=testcontainers} (see {@link Brokers}, {@link TestComponents}).
 */
public interface KafkaBroker extends AutoCloseable {

    /** {@code host:port} list for clients. */
    String bootstrapServers();

    /** Which implementation this is, e.g. {@code embedded-kraft}. */
    String kind();

    /** A new Admin client; the caller closes it. */
    default Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", bootstrapServers()));
    }

    /** Creates a topic with replication factor 1 (no-op when it exists with that partition count). */
    default void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /** Creates a topic with replication factor 1 and the given configs, waiting until it exists. */
    default void createTopic(String name, int partitions, Map<String, String> configs) {
        KafkaTestClients.createTopic(this, name, partitions, configs);
    }

    /** Stops the broker and deletes its data. Idempotent. */
    @Override
    void close();
}
