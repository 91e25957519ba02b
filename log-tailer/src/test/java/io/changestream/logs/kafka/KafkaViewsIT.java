package io.changestream.logs.kafka;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.logs.TestTopics;
import io.changestream.logs.engine.RunState;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Serdes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Run state as a read-only Kafka Streams view of a real pipeline-status topic. */
class KafkaViewsIT {

    @TempDir
    Path stateDir;

    private static ProducerRecord<String, String> status(TopicCatalog catalog, String fqn, String run,
                                                         PipelineState state, long ts) {
        PipelineRunStatus s = new PipelineRunStatus(fqn, run, state, ts, null, ts);
        return new ProducerRecord<>(catalog.pipelineStatus().name(), s.key(), Serdes.pipelineRunStatus().toJson(s));
    }

    @Test
    void runStatesKnownPipelinesAndLatestRunComeFromTheStatusTopic() {
        KafkaBroker broker = Brokers.shared();
        TopicCatalog catalog = TestTopics.create(broker);
        KafkaTestClients.produce(broker, List.of(
                status(catalog, "svc.a", "r1", PipelineState.QUEUED, 1),
                status(catalog, "svc.a", "r2", PipelineState.RUNNING, 2),
                status(catalog, "svc.a", "r3", PipelineState.PARTIAL_SUCCESS, 3),
                status(catalog, "svc.a/b", "r9", PipelineState.FAILED, 9),
                new ProducerRecord<>(catalog.pipelineStatus().name(), "svc.a/broken", "{not json")));
        try (KafkaViews views = new KafkaViews(java.util.Map.of("bootstrap.servers", broker.bootstrapServers()), catalog, stateDir, "views-it")) {
            views.start();
            views.awaitReady(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(20)).until(() -> views.state("svc.a", "r3") == RunState.FINISHED);
            assertEquals(RunState.RUNNING, views.state("svc.a", "r1"));
            assertEquals(RunState.RUNNING, views.state("svc.a", "r2"));
            assertEquals(RunState.UNKNOWN, views.state("svc.a", "never"));
            assertEquals(RunState.FINISHED, views.state("svc.a/b", "r9"));
            assertTrue(views.knowsPipeline("svc.a"));
            assertFalse(views.knowsPipeline("svc"));
            assertEquals(Optional.of("r3"), views.latestRun("svc.a"));
            KafkaTestClients.produce(broker, List.of(status(catalog, "svc.a", "r2", PipelineState.SUCCESS, 10)));
            await().atMost(Duration.ofSeconds(20)).until(() -> views.state("svc.a", "r2") == RunState.FINISHED);
            assertEquals(Optional.of("r2"), views.latestRun("svc.a"));
        }
    }
}
