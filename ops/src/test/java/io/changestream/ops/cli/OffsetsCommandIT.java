package io.changestream.ops.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The {@code offsets} commands run in-process through {@link Launcher}: output, exit codes, real effects. */
class OffsetsCommandIT {

    private static KafkaBroker broker;
    private static String topic;

    static Cli.Result run(Map<String, String> env, String... args) {
        return Cli.run(env, args);
    }

    @BeforeAll
    static void fill() {
        broker = Brokers.shared();
        topic = "cli-offsets-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            records.add(new ProducerRecord<>(topic, 0, 1_000L * (i + 1), "k", "v" + i));
        }
        KafkaTestClients.produce(broker, records);
    }

    private Cli.Result run(String... args) {
        return run(Map.of("CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers()), args);
    }

    @Test
    void dryRunPrintsThePlanAndChangesNothing() throws Exception {
        String group = "g-" + UUID.randomUUID();
        Cli.Result r = run("offsets", "reset", "--group", group, "--topic", topic, "--to-datetime",
                "1970-01-01T00:00:02.500");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("NEW-OFFSET"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(group) && l.contains(" 2 ")), r.out());
        assertTrue(r.out().contains("dry run"), r.out());
        try (Admin admin = broker.admin()) {
            assertTrue(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).isEmpty());
        }
    }

    @Test
    void executeCommitsAndDescribeShowsTheLag() throws Exception {
        String group = "g-" + UUID.randomUUID();
        Cli.Result r = run("offsets", "reset", "--group", group, "--topic", topic, "--to-offset", "1", "--execute");
        assertEquals(0, r.code(), r.err());
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertEquals(1L, committed.get(new TopicPartition(topic, 0)).offset());
        }
        Cli.Result d = run("offsets", "describe", "--group", group);
        assertEquals(0, d.code(), d.err());
        assertTrue(d.out().contains("total lag 4"), d.out());
    }

    @Test
    void usageErrorsExitWithTwoAndOneLineOnStderr() {
        Cli.Result noTarget = run("offsets", "reset", "--group", "g", "--topic", topic);
        assertEquals(2, noTarget.code());
        assertEquals(1, noTarget.err().lines().count(), noTarget.err());
        Cli.Result badTime = run("offsets", "reset", "--group", "g", "--topic", topic, "--to-datetime", "noon");
        assertEquals(2, badTime.code());
        assertTrue(badTime.err().contains("--to-datetime"), badTime.err());
        Cli.Result two = run("offsets", "reset", "--group", "g", "--all-topics", "--topic", topic, "--to-latest");
        assertEquals(2, two.code());
        Cli.Result none = run();
        assertEquals(2, none.code());
        Cli.Result noBootstrap = run(Map.of(), "offsets", "describe", "--group", "g");
        assertEquals(2, noBootstrap.code());
        assertTrue(noBootstrap.err().contains("bootstrap"), noBootstrap.err());
    }

    @Test
    void everyCommandHasHelp() {
        List<List<String>> paths = new ArrayList<>();
        collect(new picocli.CommandLine(new Launcher(Map.of(), Clock.systemUTC())), new ArrayList<>(), paths);
        assertTrue(paths.size() >= 4, paths.toString());
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            Cli.Result r = run(args.toArray(String[]::new));
            assertEquals(0, r.code(), args.toString());
            assertTrue(r.out().startsWith("Usage: changestream"), r.out());
        }
    }

    private static void collect(picocli.CommandLine cmd, List<String> path, List<List<String>> out) {
        out.add(List.copyOf(path));
        cmd.getSubcommands().forEach((name, sub) -> {
            List<String> next = new ArrayList<>(path);
            next.add(name);
            collect(sub, next, out);
        });
    }
}
