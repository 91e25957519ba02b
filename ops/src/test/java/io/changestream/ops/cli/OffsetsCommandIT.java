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

    /**
     * Issue 23: a group of namespace {@code hr…} reset without {@code --namespace} got its markers in
     * {@code cs.alert-ledger}, and the command said the group re-delivers. Now the markers go to the ledger of the
     * group's topics, and a {@code --namespace} that disagrees is refused before anything is reset.
     */
    @Test
    void resetMarkersGoToTheLedgerOfTheGroupsNamespaceAndADisagreeingNamespaceIsRefused() throws Exception {
        String ns = "hr" + UUID.randomUUID().toString().substring(0, 6) + ".";
        String changes = ns + "changes";
        String ledger = ns + "alert-ledger";
        broker.createTopic(changes, 2);
        broker.createTopic(ledger, 2);
        KafkaTestClients.produce(broker, List.of(new ProducerRecord<>(changes, 0, "k", "v0"),
                new ProducerRecord<>(changes, 0, "k", "v1")));
        String group = "g-" + UUID.randomUUID();

        Cli.Result derived = run("offsets", "reset", "--group", group, "--topic", changes, "--to-earliest",
                "--execute");
        assertEquals(0, derived.code(), derived.out() + derived.err());
        assertTrue(derived.out().contains("Wrote 2 reset marker(s) to " + ledger), derived.out());
        assertEquals(2, KafkaTestClients.readAll(broker, ledger, java.time.Duration.ofSeconds(10)).size(),
                "one marker per partition, in the group's own ledger");

        Cli.Result refused = run("offsets", "reset", "--group", group, "--topic", changes, "--to-latest",
                "--execute", "--namespace", "cs.");
        assertEquals(2, refused.code(), refused.out() + refused.err());
        assertTrue(refused.err().contains("--namespace 'cs.'") && refused.err().contains(changes)
                && refused.err().contains(ledger), refused.err());
        assertTrue(!refused.out().contains("Wrote"), "no success message: " + refused.out());
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertEquals(0L, committed.get(new TopicPartition(changes, 0)).offset(), "nothing was reset");
        }
        assertEquals(2, KafkaTestClients.readAll(broker, ledger, java.time.Duration.ofSeconds(10)).size());

        Cli.Result mixed = run("offsets", "reset", "--group", group, "--topic", changes, "--topic", topic,
                "--to-earliest", "--dry-run", "--namespace", ns);
        assertEquals(0, mixed.code(), "a non-source topic beside them does not matter: " + mixed.err());
        String other = "it" + UUID.randomUUID().toString().substring(0, 6) + ".changes";
        broker.createTopic(other, 1);
        Cli.Result two = run("offsets", "reset", "--group", group, "--topic", changes, "--topic", other,
                "--to-earliest", "--dry-run");
        assertEquals(2, two.code(), two.out() + two.err());
        assertTrue(two.err().contains("several namespaces") && two.err().contains(other), two.err());
    }

    @Test
    void exportPrintsKafkasCsvThatFromFileExecutes() throws Exception {
        String group = "g-" + UUID.randomUUID();
        Cli.Result exported = run("offsets", "reset", "--group", group, "--topic", topic, "--to-offset", "3",
                "--export");
        assertEquals(0, exported.code(), exported.err());
        String t = '"' + topic + '"'; // over 24 characters: quoted, as Kafka's tool writes it
        assertEquals(t + ",0,3\n", exported.out(), "only the CSV on stdout, so it can be redirected");
        java.nio.file.Path file = java.nio.file.Files.createTempFile("plan", ".csv");
        java.nio.file.Files.writeString(file, exported.out());
        Cli.Result executed = run("offsets", "reset", "--group", group, "--from-file", file.toString(), "--execute");
        assertEquals(0, executed.code(), executed.err());
        assertTrue(executed.out().startsWith("Executed reset"), executed.out());
        Cli.Result current = run("offsets", "reset", "--group", group, "--topic", topic, "--to-current", "--export");
        assertEquals(t + ",0,3\n", current.out(), current.err());
        java.nio.file.Path withGroup = java.nio.file.Files.createTempFile("plan", ".csv");
        java.nio.file.Files.writeString(withGroup, group + "," + exported.out());
        Cli.Result other = run("offsets", "reset", "--group", "nobody", "--from-file", withGroup.toString());
        assertEquals(2, other.code(), "a 4-column file without a line for the group given");
        assertTrue(other.err().contains("no plan for group 'nobody'"), other.err());
        Cli.Result both = run("offsets", "reset", "--group", group, "--topic", topic, "--from-file", file.toString());
        assertEquals(2, both.code(), both.err());
        assertTrue(both.err().contains("--from-file"), both.err());
    }

    @Test
    void allGroupsFromAFourColumnFileResetsTheGroupsItNames() throws Exception {
        String a = "g-" + UUID.randomUUID();
        String b = "g-" + UUID.randomUUID();
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = broker.admin()) {
            for (String g : List.of(a, b)) {
                admin.alterConsumerGroupOffsets(g, Map.of(tp, new OffsetAndMetadata(0))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            java.nio.file.Path file = java.nio.file.Files.createTempFile("plan", ".csv");
            java.nio.file.Files.writeString(file, a + "," + topic + ",0,2\n" + b + "," + topic + ",0,4\n");
            Cli.Result r = run("offsets", "reset", "--all-groups", "--from-file", file.toString(), "--execute",
                    "--export");
            assertEquals(0, r.code(), r.err());
            String t = '"' + topic + '"';
            String qa = '"' + a + '"';
            String qb = '"' + b + '"';
            assertEquals(a.compareTo(b) < 0 ? qa + "," + t + ",0,2\n" + qb + "," + t + ",0,4\n"
                    : qb + "," + t + ",0,4\n" + qa + "," + t + ",0,2\n", r.out());
            assertEquals(2L, admin.listConsumerGroupOffsets(a).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(tp).offset());
            assertEquals(4L, admin.listConsumerGroupOffsets(b).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS).get(tp).offset());
        }
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
