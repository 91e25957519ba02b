package io.changestream.ops.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offsets reset} side by side with Kafka's own {@code kafka-consumer-groups} ({@link ConsumerGroupCommand}
 * of kafka-tools, same version as the broker), on the same broker, groups and records: for every strategy both
 * plan the same offsets. Kafka's tool runs as a dry run with {@code --export}, so its CSV is also read back by
 * {@link ResetPlanCsv} — the format {@code --from-file} must accept.
 */
class KafkaToolParityIT {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final int RECORDS = 10;

    private static final java.util.regex.Pattern LOG_LINE = java.util.regex.Pattern.compile(
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} ");
    private static final ThreadLocal<String> LAST_CSV = new ThreadLocal<>();

    private static KafkaBroker broker;
    private static Admin admin;
    private static String topic;

    @BeforeAll
    static void fill() throws Exception {
        broker = Brokers.shared();
        admin = broker.admin();
        topic = "parity-" + UUID.randomUUID();
        broker.createTopic(topic, 2);
        TimedRecords.produce(broker, topic, 2, T0, RECORDS);
        // partition 1 starts at 3: clamping to the log start differs from clamping to 0
        admin.deleteRecords(Map.of(new TopicPartition(topic, 1), RecordsToDelete.beforeOffset(3))).all()
                .get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void close() {
        admin.close(Duration.ofSeconds(10));
    }

    /** A group with a committed offset on partition 0 only. */
    private static String group() throws Exception {
        String group = "parity-" + UUID.randomUUID();
        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(6)))
                .all().get(30, TimeUnit.SECONDS);
        return group;
    }

    /** Kafka's tool: a dry run with --export; its CSV parsed as {@code --from-file} would. */
    private static Map<String, Map<TopicPartition, Long>> kafka(String group, String... strategy) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-server", broker.bootstrapServers(),
                "--reset-offsets", "--dry-run", "--export"));
        args.addAll(group == null ? List.of("--all-groups") : List.of("--group", group));
        if (!List.of(strategy).contains("--from-file")) {
            args.addAll(List.of("--topic", topic));
        }
        args.addAll(List.of(strategy));
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        synchronized (KafkaToolParityIT.class) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            try {
                ConsumerGroupCommand.main(args.toArray(String[]::new));
            } finally {
                System.setOut(original);
            }
        }
        // only the tool's CSV: the test logging (testkit's logback-test.xml) also writes to stdout, and the tool
        // itself prints notes such as "Warn: Partition 1 … is empty. Falling back to latest known offset." there
        String csv = out.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> !l.isBlank() && !LOG_LINE.matcher(l).lookingAt() && !l.startsWith("Warn: "))
                .map(l -> l + "\n").collect(java.util.stream.Collectors.joining());
        LAST_CSV.set(csv);
        assertFalse(csv.isBlank(), "Kafka's tool printed a plan for " + args);
        try {
            return ResetPlanCsv.parse(csv, group);
        } catch (RuntimeException e) {
            throw new AssertionError("Kafka's tool printed, for " + args + ":\n" + csv, e);
        }
    }

    private static Map<TopicPartition, Long> ours(String group, ResetStrategy strategy) {
        ResetPlan plan = new OffsetReset(admin, Clock.systemUTC(), Duration.ofSeconds(30))
                .plan(group, strategy instanceof ResetStrategy.FromFile ? null : TopicSelection.of(List.of(topic)),
                        strategy);
        Map<TopicPartition, Long> out = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        plan.rows().forEach(r -> out.put(r.partition(), r.newOffset()));
        return out;
    }

    private static void same(String group, ResetStrategy ours, String... kafkaStrategy) {
        Map<TopicPartition, Long> theirs = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        theirs.putAll(kafka(group, kafkaStrategy).get(group));
        assertEquals(theirs, ours(group, ours), String.join(" ", kafkaStrategy));
        // and our --export prints the same text (the tool's line order is a hash map's: compare sorted lines)
        ResetPlan plan = new OffsetReset(admin, Clock.systemUTC(), Duration.ofSeconds(30)).plan(group,
                ours instanceof ResetStrategy.FromFile ? null : TopicSelection.of(List.of(topic)), ours);
        assertEquals(sortedLines(LAST_CSV.get()), sortedLines(ResetPlanCsv.export(List.of(plan), false)),
                String.join(" ", kafkaStrategy));
    }

    private static List<String> sortedLines(String text) {
        return text.lines().sorted().toList();
    }

    @Test
    void everyStrategyPlansWhatKafkasToolPlans(@TempDir Path dir) throws Exception {
        String g = group();
        same(g, new ResetStrategy.ToCurrent(), "--to-current");
        same(g, new ResetStrategy.ToEarliest(), "--to-earliest");
        same(g, new ResetStrategy.ToLatest(), "--to-latest");
        same(g, new ResetStrategy.ToOffset(1), "--to-offset", "1");
        same(g, new ResetStrategy.ToOffset(42), "--to-offset", "42");
        same(g, ResetStrategy.toDatetime("2026-11-29T10:00:04.500"), "--to-datetime", "2026-11-29T10:00:04.500");
        same(g, ResetStrategy.toDatetime("2026-11-29T10:00:30.000"), "--to-datetime", "2026-11-29T10:00:30.000");
        same(g, ResetStrategy.toDatetime("2026-11-29T11:00:02.000+01:00"), "--to-datetime",
                "2026-11-29T11:00:02.000+01:00");
        Path file = dir.resolve("plan.csv");
        Files.writeString(file, topic + ",0,2\n" + topic + ",1,0\n");
        same(g, new ResetStrategy.FromFile(file.toString(), ResetPlanCsv.parse(Files.readString(file), g).get(g)),
                "--from-file", file.toString());
        String both = group();
        admin.alterConsumerGroupOffsets(both, Map.of(new TopicPartition(topic, 1), new OffsetAndMetadata(8)))
                .all().get(30, TimeUnit.SECONDS);
        same(both, new ResetStrategy.ShiftBy(-4), "--shift-by", "-4");
        same(both, new ResetStrategy.ShiftBy(7), "--shift-by", "7");
    }

    @Test
    void allGroupsExportsTheFourColumnFormWithEachGroupsPlan() throws Exception {
        String a = group();
        String b = group();
        Map<String, Map<TopicPartition, Long>> theirs = kafka(null, "--to-current");
        for (String g : List.of(a, b)) {
            Map<TopicPartition, Long> expected = new TreeMap<>(
                    java.util.Comparator.comparing(TopicPartition::toString));
            expected.putAll(theirs.get(g));
            assertEquals(expected, ours(g, new ResetStrategy.ToCurrent()), g);
        }
        OffsetReset reset = new OffsetReset(admin, Clock.fixed(T0, ZoneOffset.UTC), Duration.ofSeconds(30));
        List<ResetPlan> plans = new ArrayList<>();
        for (String g : List.of(a, b)) {
            plans.add(reset.plan(g, TopicSelection.of(List.of(topic)), new ResetStrategy.ToCurrent()));
        }
        Map<String, Map<TopicPartition, Long>> exported = ResetPlanCsv.parse(ResetPlanCsv.export(plans, true), null);
        assertEquals(theirs.get(a), exported.get(a));
        assertEquals(theirs.get(b), exported.get(b));
    }
}
