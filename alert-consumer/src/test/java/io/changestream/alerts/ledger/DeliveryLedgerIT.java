package io.changestream.alerts.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger against the real broker: what one instance settles is known to it at once and to the next owner after
 * its rebuild, by event id whatever the offset; the horizon, the memory bound, the newest-first truncation, reset
 * markers and the one deadline of concurrent rebuilds.
 */
class DeliveryLedgerIT {

    private static final int PARTITIONS = 8;
    private final KafkaBroker broker = Brokers.shared();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final String topic = "it-ledger-" + UUID.randomUUID().toString().substring(0, 8);
    private final String changes = topic + "-changes";
    private final KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 0), new StringSerializer(), new ByteArraySerializer());

    DeliveryLedgerIT() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        open.add(producer);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private DeliveryLedger ledger(LedgerSettings settings, Clock clock) {
        DeliveryLedger ledger = new DeliveryLedger(settings, producer,
                Map.of("bootstrap.servers", broker.bootstrapServers()), new SimpleMeterRegistry(), clock);
        open.add(ledger);
        return ledger;
    }

    private DeliveryLedger ledger(LedgerSettings settings) {
        return ledger(settings, Clock.systemUTC());
    }

    /** A record in the layout of {@code ops offsets reset} and of ledgers written before batches. */
    private static byte[] json(DeliveryRecord r) {
        return Serdes.deliveryRecord().toJson(r).getBytes(StandardCharsets.UTF_8);
    }

    private LedgerSettings settings() {
        return LedgerSettings.of(topic, "group-a");
    }

    private static TopicPartition source(int partition) {
        return new TopicPartition("it-changes", partition);
    }

    private static Map<TopicPartition, Long> assigned(int... partitions) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (int p : partitions) {
            out.put(source(p), -1L);
        }
        return out;
    }

    private static void awaitReady(DeliveryLedger ledger, int... partitions) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (int p : partitions) {
                if (!ledger.ready(source(p))) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * Decision 2201: pairs of a partition settled together are group-committed — fewer ledger records than pairs —
     * and the next owner knows every one of them from the batches.
     */
    @Test
    void pairsSettledTogetherShareBatchesAndTheNextOwnerKnowsEachOne() throws Exception {
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(4));
        awaitReady(a, 4);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            writes.add(i % 3 == 0
                    ? a.recordGroupAsync(source(4), i, "sub-1", "e" + i, "WEBHOOK:w1", DeliveryRecord.DELIVERED)
                    : a.recordAsync(source(4), i, "sub-" + (i % 7), "e" + i, DeliveryRecord.DELIVERED, 1 + i % 2));
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long records;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            records = admin.listOffsets(Map.of(new TopicPartition(topic, 4), OffsetSpec.latest())).all().get()
                    .get(new TopicPartition(topic, 4)).offset();
        }
        assertTrue(records > 0 && records < 2_000, records + " ledger records for 2,000 pairs");

        DeliveryLedger b = ledger(settings());
        b.onAssigned(assigned(4));
        awaitReady(b, 4);
        for (int i = 0; i < 2_000; i++) {
            DeliveryLedger.Known known = b.known(source(4), i % 3 == 0 ? "sub-1" : "sub-" + (i % 7), "e" + i);
            if (i % 3 == 0) {
                assertEquals(Set.of("WEBHOOK:w1"), known.deliveredGroups(), "group progress of e" + i);
            } else {
                assertEquals(Optional.of(DeliveryRecord.DELIVERED), known.status(), "pair e" + i);
            }
        }
    }

    @Test
    void ownWritesAreKnownAtOnceWhateverOffsetTheRepeatComesAt() {
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(0));
        awaitReady(a, 0);
        a.record(source(0), 10, "sub-1", "event-1", DeliveryRecord.DELIVERED, 1);
        // the same event again at offset 500 (a CDC repeat after a crash): same pair, known without a rebuild
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), a.settled(source(0), "sub-1", "event-1"));
        assertEquals(Optional.empty(), a.settled(source(0), "sub-2", "event-1"), "another subscription's pair");
    }

    @Test
    void theNextOwnerRebuildsWhatAnotherInstanceSettledAtAnyOffset() {
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(1, 2));
        awaitReady(a, 1, 2);
        a.record(source(1), 3, "sub-1", "early", DeliveryRecord.DELIVERED, 1);
        a.record(source(1), 900, "sub-1", "late", DeliveryRecord.DEAD_LETTERED, 4);
        a.recordGroup(source(2), 5, "sub-1", "half", "EMAIL:x", DeliveryRecord.DELIVERED);
        a.onReleased(List.of(source(1), source(2)));

        DeliveryLedger b = ledger(settings());
        b.onAssigned(Map.of(source(1), 500L, source(2), 500L)); // committed 500: the window does not care
        awaitReady(b, 1, 2);
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(1), "sub-1", "early"));
        assertEquals(Optional.of(DeliveryRecord.DEAD_LETTERED), b.settled(source(1), "sub-1", "late"));
        DeliveryLedger.Known half = b.known(source(2), "sub-1", "half");
        assertEquals(Optional.empty(), half.status(), "only one group of the pair was delivered");
        assertEquals(java.util.Set.of("EMAIL:x"), half.deliveredGroups());

        DeliveryLedger otherGroup = ledger(LedgerSettings.of(topic, "group-b"));
        otherGroup.onAssigned(assigned(1));
        awaitReady(otherGroup, 1);
        assertEquals(Optional.empty(), otherGroup.settled(source(1), "sub-1", "early"), "once per group");
    }

    @Test
    void pairsSettledBeforeTheHorizonAreNotKept() {
        DeliveryLedger past = ledger(settings(), Clock.offset(Clock.systemUTC(), Duration.ofHours(-3)));
        past.onAssigned(assigned(3));
        awaitReady(past, 3);
        past.record(source(3), 1, "sub-1", "three-hours-ago", DeliveryRecord.DELIVERED, 1);
        DeliveryLedger now = ledger(settings());
        now.onAssigned(assigned(3));
        awaitReady(now, 3);
        now.record(source(3), 2, "sub-1", "just-now", DeliveryRecord.DELIVERED, 1);

        DeliveryLedger b = ledger(settings().withWindow(Duration.ofHours(1),
                LedgerSettings.WINDOW_MAX_BYTES.defaultOrFail()));
        b.onAssigned(assigned(3));
        awaitReady(b, 3);
        assertEquals(Optional.empty(), b.settled(source(3), "sub-1", "three-hours-ago"));
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(3), "sub-1", "just-now"));
    }

    @Test
    void aTruncatedRebuildKeepsTheNewestPairsAndMemoryStaysInItsBudget() {
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(4));
        awaitReady(a, 4);
        for (int i = 0; i < 300; i++) {
            a.record(source(4), i, "sub-1", "event-" + i, DeliveryRecord.DELIVERED, 1);
        }
        DeliveryLedger b = ledger(settings().withRebuild(100, Duration.ofSeconds(30)));
        b.onAssigned(assigned(4));
        awaitReady(b, 4);
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(4), "sub-1", "event-299"));
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(4), "sub-1", "event-200"));
        assertEquals(Optional.empty(), b.settled(source(4), "sub-1", "event-199"), "older than the newest 100");
        assertEquals("truncated", b.windows().get(0).result());

        DeliveryLedger small = ledger(settings().withWindow(Duration.ofHours(24), 8_192));
        small.onAssigned(assigned(4));
        awaitReady(small, 4);
        DeliveryLedger.WindowStatus w = small.windows().get(0);
        assertTrue(w.bytes() <= 8_192, "window of " + w.bytes() + " bytes");
        assertTrue(w.settledPairs() > 10 && w.settledPairs() < 300, w.settledPairs() + " pairs");
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), small.settled(source(4), "sub-1", "event-299"),
                "the budget trims the oldest, the newest stay");
    }

    @Test
    void aResetMarkerMakesEarlierSettlementsCountNoMore() throws Exception {
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(5));
        awaitReady(a, 5);
        a.record(source(5), 1, "sub-1", "before-reset", DeliveryRecord.DELIVERED, 1);
        DeliveryRecord marker = LedgerRecords.resetMarker("group-a", source(5), 0, System.currentTimeMillis());
        producer.send(new ProducerRecord<>(topic, LedgerRecords.ledgerPartition(5, PARTITIONS),
                LedgerRecords.keyOf(marker), json(marker))).get();
        DeliveryRecord otherGroup = LedgerRecords.resetMarker("group-b", source(5), 0, System.currentTimeMillis());
        producer.send(new ProducerRecord<>(topic, 5, LedgerRecords.keyOf(otherGroup),
                json(otherGroup))).get();
        a.record(source(5), 2, "sub-1", "after-reset", DeliveryRecord.DELIVERED, 1);

        DeliveryLedger b = ledger(settings());
        b.onAssigned(assigned(5));
        awaitReady(b, 5);
        assertEquals(Optional.empty(), b.settled(source(5), "sub-1", "before-reset"));
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(5), "sub-1", "after-reset"));
    }

    @Test
    void unreadableLedgerRecordsAreCountedAndSkipped() throws Exception {
        producer.send(new ProducerRecord<>(topic, 6, "garbage",
                "{not a delivery record".getBytes(StandardCharsets.UTF_8))).get();
        DeliveryLedger a = ledger(settings());
        a.onAssigned(assigned(6));
        awaitReady(a, 6);
        a.record(source(6), 1, "sub-1", "after-garbage", DeliveryRecord.DELIVERED, 1);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        DeliveryLedger b = new DeliveryLedger(settings(), producer, Map.of("bootstrap.servers",
                broker.bootstrapServers()), meters, Clock.systemUTC());
        open.add(b);
        b.onAssigned(assigned(6));
        awaitReady(b, 6);
        assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(6), "sub-1", "after-garbage"));
        assertEquals(1.0, meters.get("changestream.alert.ledger.unreadable.records").counter().count());
    }

    @Test
    void rebuildsOfOneAssignmentRunTogetherAndShareOneDeadline() {
        DeliveryLedger a = ledger(settings());
        int[] all = {0, 1, 2, 3, 4, 5, 6, 7};
        a.onAssigned(assigned(all));
        awaitReady(a, all);
        for (int p : all) {
            for (int i = 0; i < 200; i++) {
                a.record(source(p), i, "sub-1", p + "-" + i, DeliveryRecord.DELIVERED, 1);
            }
        }
        DeliveryLedger b = ledger(settings());
        long started = System.nanoTime();
        b.onAssigned(assigned(all));
        for (int p : all) {
            assertEquals(Optional.of(DeliveryRecord.DELIVERED), b.settled(source(p), "sub-1", p + "-199"));
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis < LedgerSettings.REBUILD_TIMEOUT.defaultOrFail().toMillis(),
                "all windows within the deadline");

        // a window whose ledger cannot be read (no broker answers the reader) holds its events: the wait ends at
        // the assignment's deadline, then throws; nothing falls back to delivering without dedupe
        DeliveryLedger broken = new DeliveryLedger(settings().withRebuild(1000, Duration.ofSeconds(2)), producer,
                Map.of("bootstrap.servers", "127.0.0.1:1"), new SimpleMeterRegistry(), Clock.systemUTC());
        open.add(broken);
        broken.onAssigned(assigned(0, 1));
        Awaitility.await().pollDelay(Duration.ofMillis(1_500)).until(() -> true);
        long waitStarted = System.nanoTime();
        assertThrows(LedgerException.class, () -> broken.known(source(1), "sub-1", "x"));
        long waited = (System.nanoTime() - waitStarted) / 1_000_000;
        assertTrue(waited < 1_500, "waited " + waited + " ms: the deadline counts from the assignment");
        assertFalse(broken.ready(source(0)));
    }
}
