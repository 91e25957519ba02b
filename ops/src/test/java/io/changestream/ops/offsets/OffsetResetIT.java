package io.changestream.ops.offsets;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.ops.OpsException;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link OffsetReset} against the real broker: two partitions of ten records each, record i of partition p
 * stamped {@code T0 + i s} (explicit CreateTime), so every expected offset is known.
 */
class OffsetResetIT {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final int RECORDS = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static KafkaBroker broker;
    private static Admin admin;
    private static String topic;

    @BeforeAll
    static void fill() {
        broker = Brokers.shared();
        admin = broker.admin();
        topic = "offsets-" + UUID.randomUUID();
        broker.createTopic(topic, 2);
        TimedRecords.produce(broker, topic, 2, T0, RECORDS);
    }

    @AfterAll
    static void close() {
        admin.close(Duration.ofSeconds(10));
    }

    private static OffsetReset reset(Clock clock) {
        return new OffsetReset(admin, clock, TIMEOUT);
    }

    private static OffsetReset reset() {
        return reset(Clock.fixed(T0, ZoneOffset.UTC));
    }

    private static String newGroup() {
        return "g-" + UUID.randomUUID();
    }

    private static void commit(String group, long p0, long p1) throws Exception {
        admin.alterConsumerGroupOffsets(group, Map.of(
                new TopicPartition(topic, 0), new OffsetAndMetadata(p0),
                new TopicPartition(topic, 1), new OffsetAndMetadata(p1))).all().get(30, TimeUnit.SECONDS);
    }

    private static Map<Integer, Long> newOffsets(ResetPlan plan) {
        return plan.rows().stream().collect(Collectors.toMap(r -> r.partition().partition(),
                PartitionPlan::newOffset));
    }

    private static Map<Integer, Long> committed(String group) throws Exception {
        return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                .entrySet().stream().collect(Collectors.toMap(e -> e.getKey().partition(), e -> e.getValue().offset()));
    }

    private static ResetPlan plan(String group, ResetStrategy strategy) {
        return reset().plan(group, TopicSelection.of(List.of(topic)), strategy);
    }

    @Test
    void toDatetimeInsideTheLogPicksTheFirstRecordAtOrAfterTheTime() {
        // T0 + 3.5 s: record 3 is older, record 4 is the first at/after
        ResetPlan plan = plan(newGroup(), ResetStrategy.toDatetime("2026-11-29T10:00:03.500"));
        assertEquals(Map.of(0, 4L, 1, 4L), newOffsets(plan));
        assertFalse(plan.executed());
        // exactly on a record's timestamp, given with an explicit zone: that record
        ResetPlan exact = plan(newGroup(), ResetStrategy.toDatetime("2026-11-29T11:00:07.000+01:00"));
        assertEquals(Map.of(0, 7L, 1, 7L), newOffsets(exact));
    }

    @Test
    void toDatetimeBeforeTheStartPicksTheFirstOffset() {
        ResetPlan plan = plan(newGroup(), ResetStrategy.toDatetime("2026-11-28T00:00:00.000Z"));
        assertEquals(Map.of(0, 0L, 1, 0L), newOffsets(plan));
    }

    @Test
    void toDatetimePastTheEndFallsBackToTheLogEnd() {
        ResetPlan plan = plan(newGroup(), ResetStrategy.toDatetime("2026-11-29T10:00:10.001"));
        assertEquals(Map.of(0, 10L, 1, 10L), newOffsets(plan));
        assertTrue(plan.rows().get(0).note().contains("log end"), plan.rows().get(0).note());
    }

    @Test
    void byDurationCountsBackFromTheClock() {
        // now = T0 + 20 s; PT14S back = T0 + 6 s → offset 6
        Clock clock = Clock.fixed(T0.plusSeconds(20), ZoneOffset.UTC);
        ResetPlan plan = reset(clock).plan(newGroup(), TopicSelection.of(List.of(topic)),
                ResetStrategy.byDuration("PT14S"));
        assertEquals(Map.of(0, 6L, 1, 6L), newOffsets(plan));
        // a duration reaching before the first record → 0
        ResetPlan all = reset(clock).plan(newGroup(), TopicSelection.of(List.of(topic)),
                ResetStrategy.byDuration("PT1H"));
        assertEquals(Map.of(0, 0L, 1, 0L), newOffsets(all));
    }

    @Test
    void shiftByMovesFromTheCommittedOffsetAndClampsToTheLog() throws Exception {
        String group = newGroup();
        commit(group, 5, 2);
        assertEquals(Map.of(0, 8L, 1, 5L), newOffsets(plan(group, new ResetStrategy.ShiftBy(3))));
        assertEquals(Map.of(0, 0L, 1, 0L), newOffsets(plan(group, new ResetStrategy.ShiftBy(-7))));
        assertEquals(Map.of(0, 10L, 1, 10L), newOffsets(plan(group, new ResetStrategy.ShiftBy(100))));
        ResetPlan allTopics = reset().plan(group, TopicSelection.all(), new ResetStrategy.ShiftBy(-1));
        assertEquals(Map.of(0, 4L, 1, 1L), newOffsets(allTopics));
    }

    @Test
    void shiftByWithoutCommittedOffsetIsRefused() {
        OpsException e = assertThrows(OpsException.class, () -> plan(newGroup(), new ResetStrategy.ShiftBy(1)));
        assertTrue(e.getMessage().contains("no current committed offset"), e.getMessage());
    }

    @Test
    void toOffsetAndEarliestClampToTheLogStart() throws Exception {
        String other = "offsets-trimmed-" + UUID.randomUUID();
        broker.createTopic(other, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            records.add(new ProducerRecord<>(other, 0, T0.plusSeconds(i).toEpochMilli(), "k", "v" + i));
        }
        KafkaTestClients.produce(broker, records);
        admin.deleteRecords(Map.of(new TopicPartition(other, 0), RecordsToDelete.beforeOffset(3)))
                .all().get(30, TimeUnit.SECONDS);
        TopicSelection sel = TopicSelection.of(List.of(other + ":0"));
        String group = newGroup();
        assertEquals(Map.of(0, 3L), newOffsets(reset().plan(group, sel, new ResetStrategy.ToOffset(1))));
        assertEquals(Map.of(0, 5L), newOffsets(reset().plan(group, sel, new ResetStrategy.ToOffset(5))));
        assertEquals(Map.of(0, 10L), newOffsets(reset().plan(group, sel, new ResetStrategy.ToOffset(12))));
        assertEquals(Map.of(0, 3L), newOffsets(reset().plan(group, sel, new ResetStrategy.ToEarliest())));
        assertEquals(Map.of(0, 10L), newOffsets(reset().plan(group, sel, new ResetStrategy.ToLatest())));
    }

    @Test
    void executeMovesTheCommittedOffsetsAndDryRunDoesNot() throws Exception {
        String group = newGroup();
        commit(group, 9, 9);
        OffsetReset reset = reset();
        ResetPlan plan = reset.plan(group, TopicSelection.of(List.of(topic)),
                ResetStrategy.toDatetime("2026-11-29T10:00:02.000"));
        assertEquals(Map.of(0, 9L, 1, 9L), committed(group), "planning alone changes nothing");
        ResetPlan done = reset.execute(plan);
        assertTrue(done.executed());
        assertEquals(Map.of(0, 2L, 1, 2L), committed(group));
        GroupOffsets described = reset.describe(group);
        assertEquals(16, described.totalLag());
        assertEquals(GroupState.EMPTY, described.state());
    }

    @Test
    void refusesWhileTheGroupHasAnActiveMemberAndResetsOnceItLeft() throws Exception {
        String group = newGroup();
        commit(group, 1, 1);
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(100));
                return !consumer.assignment().isEmpty();
            });
            GroupActiveException e = assertThrows(GroupActiveException.class,
                    () -> plan(group, new ResetStrategy.ToEarliest()));
            assertTrue(e.getMessage().contains("Stable"), e.getMessage());
            GroupOffsets described = reset().describe(group);
            assertEquals(1, described.members());
            assertTrue(described.rows().stream().allMatch(r -> !r.consumerId().equals("-")),
                    "describe shows the owner of every partition");
        }
        ResetPlan plan = reset().execute(plan(group, new ResetStrategy.ToLatest()));
        assertEquals(Map.of(0, 10L, 1, 10L), committed(group));
        assertEquals(GroupState.EMPTY, plan.state());
    }

    @Test
    void unknownTopicIsAUsageError() {
        assertThrows(io.changestream.ops.UsageException.class, () -> reset().plan(newGroup(),
                TopicSelection.of(List.of("no-such-topic-" + UUID.randomUUID())), new ResetStrategy.ToLatest()));
    }

    @Test
    void toCurrentKeepsTheCommittedOffsetAndUsesTheLogEndWhereThereIsNone() throws Exception {
        String group = newGroup();
        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(5)))
                .all().get(30, TimeUnit.SECONDS);
        ResetPlan plan = plan(group, new ResetStrategy.ToCurrent());
        assertEquals(Map.of(0, 5L, 1, 10L), newOffsets(plan));
        assertTrue(plan.rows().get(1).note().contains("log end"), plan.rows().get(1).note());
        reset().execute(plan);
        assertEquals(Map.of(0, 5L, 1, 10L), committed(group));
    }

    @Test
    void exportWritesKafkasCsvAndFromFileReadsItBackClampedToTheLog() throws Exception {
        String group = newGroup();
        ResetPlan plan = plan(group, ResetStrategy.toDatetime("2026-11-29T10:00:04.000"));
        // topic and group ids are over 24 characters: quoted, as Kafka's tool (Jackson CSV) writes them
        String t = '"' + topic + '"';
        String g = '"' + group + '"';
        assertEquals(t + ",0,4\n" + t + ",1,4\n", ResetPlanCsv.export(List.of(plan), false));
        assertEquals(g + "," + t + ",0,4\n" + g + "," + t + ",1,4\n", ResetPlanCsv.export(List.of(plan), true));
        // the exported file round-trips; a hand-edited line past the end is clamped like --to-offset
        String csv = ResetPlanCsv.export(List.of(plan), false).replace(t + ",1,4", topic + ",1,12");
        ResetStrategy.FromFile file = new ResetStrategy.FromFile("plan.csv",
                ResetPlanCsv.parse(csv, group).get(group));
        ResetPlan fromFile = reset().plan(group, null, file);
        assertEquals(Map.of(0, 4L, 1, 10L), newOffsets(fromFile));
        assertTrue(fromFile.rows().get(1).note().contains("log end"), fromFile.rows().get(1).note());
        reset().execute(fromFile);
        assertEquals(Map.of(0, 4L, 1, 10L), committed(group));
        // a file naming a partition the topic does not have is a usage error, before anything is committed
        ResetStrategy.FromFile bad = new ResetStrategy.FromFile("bad.csv",
                ResetPlanCsv.parse(topic + ",7,1\n", group).get(group));
        assertThrows(io.changestream.ops.UsageException.class, () -> reset().plan(group, null, bad));
        assertThrows(io.changestream.ops.UsageException.class, () -> ResetPlanCsv.parse(topic + ",x,1\n", group));
        assertThrows(io.changestream.ops.UsageException.class, () -> ResetPlanCsv.parse(topic + ",0,1\n", null));
    }

    @Test
    void allGroupsResetsEveryInactiveGroupAndRefusesTheActiveOne() throws Exception {
        // a broker of its own: --all-groups would otherwise reach the other test classes' groups
        try (KafkaBroker own = Brokers.start(Map.of()); Admin ownAdmin = own.admin()) {
            String t = "all-groups-" + UUID.randomUUID();
            own.createTopic(t, 1);
            TimedRecords.produce(own, t, 1, T0, RECORDS);
            TopicPartition tp = new TopicPartition(t, 0);
            for (String g : List.of("a", "b", "active")) {
                ownAdmin.alterConsumerGroupOffsets(g, Map.of(tp, new OffsetAndMetadata(7))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            Map<String, Object> props = KafkaTestClients.consumerProps(own);
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "active");
            OffsetReset reset = new OffsetReset(ownAdmin, Clock.fixed(T0, ZoneOffset.UTC), TIMEOUT);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(t));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    consumer.poll(Duration.ofMillis(100));
                    return !consumer.assignment().isEmpty();
                });
                assertEquals(List.of("a", "active", "b"), reset.consumerGroups());
                OffsetReset.GroupsPlan all = reset.planAllGroups(TopicSelection.all(),
                        new ResetStrategy.ShiftBy(-5), null);
                assertEquals(List.of("a", "b"), all.plans().stream().map(ResetPlan::group).toList());
                assertEquals(1, all.refused().size());
                assertTrue(all.refused().get(0).contains("'active'"), all.refused().get(0));
                all.plans().forEach(reset::execute);
            }
            for (String g : List.of("a", "b")) {
                assertEquals(2L, ownAdmin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS).get(tp).offset(), g);
            }
            assertEquals(7L, ownAdmin.listConsumerGroupOffsets("active").partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(tp).offset(), "the active group is left alone");
        }
    }

    @Test
    void exportQuotesExactlyWhereKafkasJacksonWriterDoes() {
        assertEquals("cs.changes", ResetPlanCsv.field("cs.changes"));
        assertEquals("abcdefghijklmnopqrstuvwx", ResetPlanCsv.field("abcdefghijklmnopqrstuvwx"));
        assertEquals("\"abcdefghijklmnopqrstuvwxy\"", ResetPlanCsv.field("abcdefghijklmnopqrstuvwxy"));
        assertEquals("\"a b\"", ResetPlanCsv.field("a b"));
        assertEquals("\"say \"\"hi\"\",x\"", ResetPlanCsv.field("say \"hi\",x"));
        assertEquals(Map.of(new TopicPartition("t", 0), 5L),
                ResetPlanCsv.parse("\"say \"\"hi\"\",x\",t,0,5\n", null).get("say \"hi\",x"));
    }
}
