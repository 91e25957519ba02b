package io.changestream.alerts.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 item 9: the retry path's destination-state reader died for good on one Kafka timeout (suspensions made by
 * other instances were no longer seen) and was not in liveness. Now a real timeout (its topic deleted on a broker
 * that does not auto-create topics, then a catch-up reads its end offset) ends the reader, its supervisor restarts it, and it sees what another instance
 * writes afterwards; a reader that cannot be restarted is given up and the retry path reports itself not live.
 */
class DestinationStatesRestartIT {

    private static RetrySettings settings(String stateTopic, Duration recheck) {
        return new RetrySettings("restart-retry", stateTopic, "g", Duration.ofSeconds(30), 1_048_576, 2, 8_000,
                1_000, 1, recheck, Duration.ofSeconds(1), Duration.ofMinutes(1), 20, Duration.ofDays(3), 10_000, 100_000,
                Duration.ofMillis(200), Duration.ofSeconds(20), Duration.ofSeconds(10));
    }

    @Test
    void aNewOwnerReadsTheOffsetsSettledOutOfOrderAndSkipsThem() throws Exception {
        KafkaBroker broker = Brokers.shared();
        String topic = "progress-destinations-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
        Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer())) {
            try (DestinationStates owner = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                    kafka, key -> 0, Clock.systemUTC())) {
                owner.start();
                owner.handedOff("s/d", 2, 40);
                owner.drained("s/d", 2, 30);
                owner.settledAbove("s/d", 2, 33);
                owner.settledAbove("s/d", 2, 36);
                owner.publishNow(); // what a revoke does before it commits
            }
            try (DestinationStates next = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                    kafka, key -> 0, Clock.systemUTC())) {
                next.start();
                DestinationStates.State s = next.of("s/d");
                assertTrue(s.settled(2, 30));
                assertFalse(s.settled(2, 31), "never settled: the new owner sends it");
                assertTrue(s.settled(2, 33), "settled out of order by the previous owner: skipped");
                assertTrue(s.settled(2, 36));
                assertFalse(s.settled(1, 33), "an offset means nothing on another partition");
                assertTrue(s.backlogged(), "40 handed off, not drained");
                next.drained("s/d", 2, 34);
                next.publishNow();
            }
            try (DestinationStates third = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                    kafka, key -> 0, Clock.systemUTC())) {
                third.start();
                DestinationStates.Progress p = third.of("s/d").on(2);
                assertEquals(34, p.drained());
                assertEquals(List.of(36L), p.settledAbove(), "the newest record carries what is settled whole");
                third.attempting("s/d", 2, 38);
                third.attempting("s/d", 2, 39);
                third.attempting("s/d", 2, 33); // settled already: a mark means nothing there
                third.attemptEnded("s/d", 2, 39);
                producer.flush();
            }
            try (DestinationStates fourth = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                    kafka, key -> 0, Clock.systemUTC())) {
                fourth.start();
                assertTrue(fourth.attempted("s/d", 2, 38), "an at-most-once send started and never settled");
                assertFalse(fourth.attempted("s/d", 2, 39), "its outcome was known: the mark went");
                assertFalse(fourth.attempted("s/d", 2, 33), "settled");
                assertFalse(fourth.attempted("s/d", 1, 38), "another partition");
            }
        }
    }

    @Test
    void aKafkaTimeoutRestartsTheStateReaderAndOneThatCannotRestartIsNotLive() throws Exception {
        try (KafkaBroker broker = Brokers.start(Map.of("auto.create.topics.enable", "false"));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                     ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000),
                     new StringSerializer(), new StringSerializer())) {
            String topic = "restart-destinations-" + UUID.randomUUID();
            broker.createTopic(topic, 1);
            Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers(),
                    "default.api.timeout.ms", 2_000, "allow.auto.create.topics", false);
            try (DestinationStates watcher = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                    kafka, key -> 0, Clock.systemUTC());
                 DestinationStates writer = new DestinationStates(settings(topic, Duration.ofMillis(200)), producer,
                         kafka, key -> 0, Clock.systemUTC())) {
                watcher.start();
                writer.start();
                writer.suspend("s1/d1", "HTTP 410", "receiver");
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> watcher.suspension("s1/d1").isPresent());

                deleteTopic(broker, topic);
                // a new owner of retry partitions asks the reader to catch up: reading the end offset times out
                java.util.concurrent.CompletableFuture.runAsync(watcher::awaitCurrent);
                Awaitility.await("the reader times out and is restarted").atMost(Duration.ofSeconds(30))
                        .until(() -> watcher.readerRestarts() >= 1);
                assertTrue(watcher.alive(), "restarts are pending, not given up");
                broker.createTopic(topic, 1);
                writer.suspend("s2/d2", "HTTP 410", "receiver");
                Awaitility.await("a restarted reader sees what another instance wrote meanwhile")
                        .atMost(Duration.ofSeconds(60)).until(() -> watcher.suspension("s2/d2").isPresent());
                assertTrue(watcher.alive());
                assertEquals(Optional.of("HTTP 410"), watcher.suspension("s1/d1"), "what it had read is kept");
            }
            String gone = "restart-destinations-" + UUID.randomUUID();
            broker.createTopic(gone, 1);
            try (DestinationStates once = new DestinationStates(settings(gone, Duration.ofMillis(50)), producer,
                    kafka, key -> 0, Clock.systemUTC())) {
                once.start();
                deleteTopic(broker, gone);
                java.util.concurrent.CompletableFuture.runAsync(once::awaitCurrent);
                Awaitility.await("given up after its restarts").atMost(Duration.ofSeconds(120))
                        .until(() -> !once.alive());
                assertFalse(once.alive());
            }
        }
    }

    private static void deleteTopic(KafkaBroker broker, String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            admin.deleteTopics(List.of(topic)).all().get();
            Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> !admin.listTopics().names().get().contains(topic));
        }
    }
}
