package io.changestream.logs;

import static org.awaitility.Awaitility.await;

import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.TopicSpec;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** The log-tailer's topics under a fresh namespace on the test broker (replication factor 1). */
public final class TestTopics {

    private TestTopics() {
    }

    /** A catalog with a random namespace whose pipeline-status and log-chunks exist. */
    public static TopicCatalog create(KafkaBroker broker) {
        TopicCatalog catalog = new TopicCatalog("lt-" + UUID.randomUUID().toString().substring(0, 8) + ".")
                .withReplicationFactor((short) 1);
        for (TopicSpec spec : List.of(catalog.pipelineStatus(), catalog.logChunks())) {
            // testkit's createTopic can see UnknownTopicOrPartition while metadata propagates; it is idempotent,
            // so ask again (bounded)
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                broker.createTopic(spec.name(), spec.partitions(), spec.configs());
                return true;
            });
        }
        return catalog;
    }
}
