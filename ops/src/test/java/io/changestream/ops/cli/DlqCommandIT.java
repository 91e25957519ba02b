package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.serde.Serdes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code dlq list|replay} against the real broker: dead letters of two subscriptions in a private namespace. */
class DlqCommandIT {

    private static final KafkaBroker BROKER = Brokers.shared();
    private static TopicCatalog catalog;

    private static FailedEvent failed(String subscription, String entityId) {
        ChangeEvent event = new ChangeEvent(UUID.randomUUID().toString(), "entityUpdated", "table", entityId, null,
                "svc.db." + entityId, 0.1, 0.2, "alice", null, System.currentTimeMillis(), null, null, null);
        return new FailedEvent(subscription, event, "HTTP 400 from receiver", FailureSource.SUBSCRIBER, 0, 1,
                System.currentTimeMillis(), "dest-1");
    }

    @BeforeAll
    static void fill() {
        String ns = "dlq" + UUID.randomUUID().toString().substring(0, 6) + ".";
        catalog = new TopicCatalog(ns).withReplicationFactor((short) 1).withPartitions(CatalogTopic.CHANGES, 2)
                .withPartitions(CatalogTopic.ALERT_DLQ, 2);
        try (Admin admin = BROKER.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        String dlq = catalog.alertDlq().name();
        List<FailedEvent> letters = List.of(failed("s1", "e1"), failed("s2", "e2"), failed("s1", "e3"));
        KafkaTestClients.produce(BROKER, letters.stream()
                .map(f -> new ProducerRecord<>(dlq, f.key(), Serdes.failedEvent().toJson(f))).toList());
    }

    private Cli.Result run(String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--namespace";
        all[args.length + 1] = catalog.namespace();
        return Cli.run(Map.of("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", BROKER.bootstrapServers()), all);
    }

    @Test
    void listFiltersBySubscriptionAndTime() {
        Cli.Result s1 = run("dlq", "list", "--subscription", "s1");
        assertEquals(0, s1.code(), s1.err());
        assertTrue(s1.out().contains("2 dead letter(s)."), s1.out());
        assertTrue(s1.out().contains("svc.db.e1") && s1.out().contains("svc.db.e3"), s1.out());
        Cli.Result all = run("dlq", "list");
        assertTrue(all.out().contains("3 dead letter(s)."), all.out());
        Cli.Result recent = run("dlq", "list", "--since", "PT1H");
        assertTrue(recent.out().contains("3 dead letter(s)."), recent.out());
        Cli.Result future = run("dlq", "list", "--since", "2999-01-01T00:00:00.000");
        assertTrue(future.out().contains("0 dead letter(s)."), future.out());
    }

    @Test
    void replayIsADryRunUntilExecuteThenProducesTheEventsWithReplayHeaders() {
        Cli.Result dry = run("dlq", "replay", "--subscription", "s2");
        assertEquals(0, dry.code(), dry.err());
        assertTrue(dry.out().contains("1 dead letter(s) would be replayed"), dry.out());
        assertTrue(KafkaTestClients.readAll(BROKER, catalog.changes().name(), Duration.ofSeconds(30)).isEmpty(),
                "a dry run produces nothing");

        Cli.Result done = run("dlq", "replay", "--subscription", "s2", "--execute");
        assertEquals(0, done.code(), done.err());
        List<ConsumerRecord<String, String>> changes = KafkaTestClients.readAll(BROKER, catalog.changes().name(),
                Duration.ofSeconds(30));
        assertEquals(1, changes.size());
        ConsumerRecord<String, String> r = changes.get(0);
        assertEquals("e2", r.key());
        assertEquals("e2", Serdes.changeEvent().fromJson(r.value()).entityId());
        assertEquals("s2", new String(r.headers().lastHeader("cs.replay.subscription").value(),
                StandardCharsets.UTF_8));
    }

    @Test
    void replayNeedsASubscription() {
        assertEquals(2, run("dlq", "replay").code());
    }
}
