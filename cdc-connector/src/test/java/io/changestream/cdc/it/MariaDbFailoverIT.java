package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MariaDB failover with the lease: two connector instances (child JVMs, no {@code database.server.id} set, so each
 * derives its own) against one real MariaDB; 5,000 rows are inserted while the active instance is SIGKILLed twice
 * (a fresh standby is started after each kill, so two instances always run). Every row's event id must reach
 * {@code changes}, per-entity order must hold, and — checked from what the broker stored — there was never more than
 * one capturer at a time: every record names its capturer and lease epoch, each epoch belongs to one instance, and in
 * every partition the epochs never go back (a zombie writing after its successor would show an older epoch after a
 * newer one).
 */
class MariaDbFailoverIT {

    private static final int ROWS = 5_000;
    private static final int ENTITIES = 50;
    private static final int ROWS_PER_TX = 10;

    @RegisterExtension
    static final PlatformMariaDb MARIADB = new PlatformMariaDb();

    private static final KafkaBroker BROKER = Brokers.shared();

    @Test
    void fiveThousandRowsSurviveTwoKillsOfTheActiveInstanceWithOneCapturerAtATime() throws Exception {
        String ns = "maria-kill-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        Map<String, String> settings = new HashMap<>(Configs.mariadb(MARIADB.db(), BROKER, ns, "cs-maria-kill"));
        settings.put("lease.session.timeout.ms", "6000");
        CrashWorkload rows = new CrashWorkload(ROWS, ENTITIES);
        List<ConnectorProcess> processes = new ArrayList<>();
        List<Long> takeovers = new ArrayList<>();
        CompletableFuture<Void> inserts = null;
        try {
            processes.add(ConnectorProcess.start("maria-kill-1", settings));
            processes.add(ConnectorProcess.start("maria-kill-2", settings));
            ConnectorProcess active = awaitActive(processes, Duration.ofSeconds(120));
            // a few hundred rows/s, so both kills land mid-stream
            inserts = rows.start(MARIADB.db()::connection, "INSERT INTO change_event (json) VALUES (?)", ROWS_PER_TX,
                    60);
            Set<Long> epochsSeen = new HashSet<>();
            for (int kill = 1; kill <= 2; kill++) {
                int threshold = ROWS * (kill == 1 ? 20 : 55) / 100;
                int holders = kill;
                // kill the active instance once it has produced under its own epoch, mid-stream
                try (TopicReader watch = new TopicReader(BROKER, ns + "changes")) {
                    await().atMost(Duration.ofSeconds(120)).until(() -> {
                        watch.poll().forEach(r -> epochsSeen.add(Long.parseLong(header(r, "cs.lease.epoch"))));
                        return rows.committed() >= threshold && epochsSeen.size() >= holders;
                    });
                }
                assertTrue(rows.committed() < ROWS, "kill " + kill + " lands while rows are still inserted");
                long killedAt = System.nanoTime();
                active.kill();
                processes.remove(active);
                // a fresh standby, so two instances run again
                processes.add(ConnectorProcess.start("maria-kill-" + (kill + 2), settings));
                active = awaitActive(processes, Duration.ofSeconds(60));
                takeovers.add((System.nanoTime() - killedAt) / 1_000_000);
            }
            inserts.get(180, TimeUnit.SECONDS);

            List<ConsumerRecord<String, String>> records;
            try (TopicReader reader = new TopicReader(BROKER, ns + "changes")) {
                records = rows.awaitEveryIdInOrder(reader, Duration.ofSeconds(120), (r, v) -> { });
            }

            // the broker's side: who wrote each record, under which lease epoch
            Map<Long, String> capturerByEpoch = new TreeMap<>();
            Map<Integer, Long> lastEpochByPartition = new HashMap<>();
            for (ConsumerRecord<String, String> r : records) {
                String capturer = header(r, "cs.capturer");
                long epoch = Long.parseLong(header(r, "cs.lease.epoch"));
                String other = capturerByEpoch.putIfAbsent(epoch, capturer);
                assertTrue(other == null || other.equals(capturer), "epoch " + epoch + " used by " + other + " and "
                        + capturer);
                Long before = lastEpochByPartition.put(r.partition(), epoch);
                assertTrue(before == null || before <= epoch, "partition " + r.partition() + " offset " + r.offset()
                        + ": epoch " + epoch + " written after epoch " + before + " — two capturers at once");
            }
            assertTrue(capturerByEpoch.size() >= 3, "three holders captured in turn: " + capturerByEpoch);
            assertEquals(capturerByEpoch.size(), new HashSet<>(capturerByEpoch.values()).size(),
                    "one epoch per holder: " + capturerByEpoch);

            String report = "mariadb-failover: rows=" + ROWS + " records=" + records.size() + " duplicates="
                    + (records.size() - ROWS) + " kills=2 takeover-ms=" + takeovers + " capturers=" + capturerByEpoch;
            System.out.println(report);
            Files.writeString(Path.of("target", "mariadb-failover.txt"), report + "\n");
            assertEquals(0, active.terminate(Duration.ofSeconds(10)), "SIGTERM: graceful stop, exit 0 within 10 s");
        } finally {
            if (inserts != null) {
                inserts.cancel(true);
            }
            for (ConnectorProcess p : processes) {
                p.close();
            }
        }
    }

    /** The one instance that reports ready; fails if two ever do at the same time. */
    private static ConnectorProcess awaitActive(List<ConnectorProcess> processes, Duration timeout) {
        ConnectorProcess[] active = new ConnectorProcess[1];
        await("an active instance").atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<ConnectorProcess> ready = processes.stream().filter(ConnectorProcess::ready).toList();
            assertTrue(ready.size() <= 1, "two instances ready at once");
            active[0] = ready.isEmpty() ? null : ready.get(0);
            return active[0] != null;
        });
        return active[0];
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        assertTrue(header != null, "record at " + record.partition() + "/" + record.offset() + " has no " + name);
        return new String(header.value(), StandardCharsets.UTF_8);
    }
}
