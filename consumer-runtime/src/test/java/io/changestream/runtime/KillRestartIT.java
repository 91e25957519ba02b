package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Three instances in separate JVMs share 20,000 records over 12 partitions while one of them is killed with
 * SIGKILL every 2,500 processed records and restarted. Afterwards every record was processed at least once, each
 * incarnation processed every key in offset order, the group is committed at the log end, and the number of records
 * processed again (the price of a crash: events done after the last commit) is reported.
 */
class KillRestartIT {

    private static final int RECORDS = 20_000;
    private static final int PARTITIONS = 12;
    private static final int INSTANCES = 3;
    private static final int KILL_EVERY = 2_500;
    private static final int MAX_KILLS = 6;

    private final KafkaBroker broker = Brokers.shared();

    /** One processing as the output topic recorded it. */
    private record Output(String incarnation, int partition, long offset, String key) {
    }

    @Test
    void randomKillsAndRestartsLoseNothingAndKeepPerKeyOrderPerIncarnation() throws Exception {
        String in = RuntimeTestSupport.unique("kill-in");
        String out = RuntimeTestSupport.unique("kill-out");
        String group = RuntimeTestSupport.unique("kill-group");
        broker.createTopic(in, PARTITIONS);
        broker.createTopic(out, PARTITIONS);
        RuntimeTestSupport.produceKeyed(broker, in, RECORDS, 1_000);
        Path logs = Files.createDirectories(Path.of("target", "kill-restart", group));

        Random random = new Random(20_000);
        List<Process> workers = new ArrayList<>();
        int incarnations = 0;
        List<Output> outputs = new ArrayList<>();
        Set<String> distinct = new HashSet<>();
        int kills = 0;
        try (KafkaConsumer<String, String> reader = reader(out)) {
            for (int i = 0; i < INSTANCES; i++) {
                workers.add(startWorker(in, out, group, incarnations++, logs));
            }
            int next = KILL_EVERY;
            while (kills < MAX_KILLS && next < RECORDS) {
                int target = next;
                Awaitility.await().atMost(Duration.ofSeconds(60))
                        .until(() -> read(reader, outputs, distinct) >= target);
                int victim = random.nextInt(INSTANCES);
                workers.get(victim).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                kills++;
                workers.set(victim, startWorker(in, out, group, incarnations++, logs));
                next = distinct.size() + KILL_EVERY;
            }
            Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> read(reader, outputs, distinct) >= RECORDS);
            for (Process w : workers) {
                w.destroy(); // SIGTERM: drain, commit, leave
            }
            for (Process w : workers) {
                assertTrue(w.waitFor(30, TimeUnit.SECONDS), "a worker did not stop on SIGTERM");
            }
            read(reader, outputs, distinct);
        } finally {
            workers.forEach(Process::destroyForcibly);
        }

        assertEquals(RECORDS, distinct.size(), "every record processed at least once");
        assertTrue(kills >= 3, "the run must include kills, had " + kills);
        Map<TopicPartition, Long> ends = RuntimeTestSupport.nonEmptyEnds(broker, in);
        assertEquals(ends, RuntimeTestSupport.committed(broker, group), "committed offsets equal the log end");
        Map<String, Long> lastOffset = new HashMap<>();
        for (Output o : outputs) {
            String sequence = o.incarnation() + "/" + o.key();
            Long previous = lastOffset.put(sequence, o.offset());
            assertTrue(previous == null || previous < o.offset(),
                    "incarnation " + o.incarnation() + " processed key " + o.key() + " out of order: " + previous
                            + " then " + o.offset());
        }
        System.out.printf("KillRestartIT: %d records, %d kills, %d incarnations, %d re-processed records%n",
                RECORDS, kills, incarnations, outputs.size() - RECORDS);
    }

    private Process startWorker(String in, String out, String group, int incarnation, Path logs) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), WorkerMain.class.getName(),
                broker.bootstrapServers(), in, out, group, Integer.toString(incarnation));
        File log = logs.resolve("worker-" + incarnation + ".log").toFile();
        pb.redirectErrorStream(true).redirectOutput(log);
        return pb.start();
    }

    private KafkaConsumer<String, String> reader(String topic) {
        Map<String, Object> props = KafkaTestClients.consumerProps(broker);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        KafkaConsumer<String, String> reader = new KafkaConsumer<>(props);
        List<TopicPartition> parts = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            parts.add(new TopicPartition(topic, p));
        }
        reader.assign(parts);
        reader.seekToBeginning(parts);
        return reader;
    }

    /** Reads what arrived on the output topic; returns how many distinct input records were processed. */
    private static int read(KafkaConsumer<String, String> reader, List<Output> outputs, Set<String> distinct) {
        for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
            String[] v = r.value().split(",");
            outputs.add(new Output(v[0], Integer.parseInt(v[1]), Long.parseLong(v[2]), r.key()));
            distinct.add(v[1] + "@" + v[2]);
        }
        return distinct.size();
    }
}
