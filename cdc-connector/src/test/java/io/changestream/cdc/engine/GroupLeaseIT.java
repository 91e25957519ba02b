package io.changestream.cdc.engine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.metrics.CdcMetrics;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The lease on the real broker: one holder at a time, a joining standby does not take it, a leaving holder hands over
 * with a larger epoch, and a holder cut off from the coordinator gives the lease up within the session timeout.
 */
class GroupLeaseIT {

    private static final int SESSION_MS = 6_000;
    private static final int HEARTBEAT_MS = SESSION_MS / 4;
    private static final long POLL_MS = 100;
    private static final long VALIDITY_MS = SESSION_MS - HEARTBEAT_MS - POLL_MS;

    /** A lease whose {@link GroupLease#run()} runs on its own thread, as the supervisor would run it. */
    private static final class Running implements AutoCloseable {
        final GroupLease lease;
        final AtomicInteger lost = new AtomicInteger();
        final AtomicLong lostAtNanos = new AtomicLong();
        final Thread thread;

        Running(KafkaBroker broker, String topic, String instance) {
            lease = new GroupLease(Map.of("bootstrap.servers", broker.bootstrapServers()), topic, topic + "-lease",
                    instance, SESSION_MS, HEARTBEAT_MS, POLL_MS, VALIDITY_MS, () -> {
                        lostAtNanos.compareAndSet(0, System.nanoTime());
                        lost.incrementAndGet();
                    }, new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true));
            thread = new Thread(lease::run, "lease-it-" + instance);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            lease.close();
            thread.join(15_000);
        }
    }

    @Test
    void oneHolderAtATimeAndAGracefulLeaveHandsOverWithALargerEpoch() throws Exception {
        KafkaBroker broker = Brokers.shared();
        String topic = "lease-it-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
        try (Running first = new Running(broker, topic, "a"); Running second = new Running(broker, topic, "b")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> first.lease.held() || second.lease.held());
            Running holder = first.lease.held() ? first : second;
            Running standby = holder == first ? second : first;
            // the standby joins the group; cooperative-sticky assignment leaves the partition with its holder
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> holder.lease.held() && !standby.lease.held());
            assertEquals(0, holder.lost.get(), "joining standby must not revoke the holder");
            long firstEpoch = holder.lease.epoch();
            assertTrue(holder.lease.heldAt(firstEpoch));

            holder.close();
            assertEquals(1, holder.lost.get(), "the holder stops its engine before handing over");
            await().atMost(Duration.ofSeconds(15)).until(standby.lease::held);
            assertFalse(holder.lease.held());
            assertFalse(holder.lease.heldAt(firstEpoch), "the old epoch is fenced");
            assertTrue(standby.lease.epoch() > firstEpoch, "epochs grow from holder to holder: "
                    + firstEpoch + " then " + standby.lease.epoch());
        }
    }

    @Test
    void theHolderKeepsTheLeaseWhileTheGroupWaitsForADeadStandbyToExpire() throws Exception {
        KafkaBroker broker = Brokers.shared();
        String topic = "lease-dead-standby-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
        try (Running holder = new Running(broker, topic, "holder")) {
            await().atMost(Duration.ofSeconds(30)).until(holder.lease::held);
            java.nio.file.Path log = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target",
                    "connector-processes")).resolve("lease-member.log");
            Process standby = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                    LeaseMemberMain.class.getName(), broker.bootstrapServers(), topic, "doomed")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> standbyJoined(broker, topic));
            } finally {
                standby.destroyForcibly().waitFor();
            }
            // a new standby joins while the dead one is still a member: the rebalance waits for it to expire
            try (Running late = new Running(broker, topic, "late")) {
                await().during(Duration.ofMillis(SESSION_MS + 4_000)).atMost(Duration.ofMillis(SESSION_MS + 6_000))
                        .until(() -> holder.lease.held() && holder.lost.get() == 0);
                assertFalse(late.lease.held());
            }
        }
    }

    private static boolean standbyJoined(KafkaBroker broker, String topic) throws Exception {
        try (var admin = broker.admin()) {
            return admin.describeConsumerGroups(java.util.List.of(topic + "-lease")).all().get()
                    .get(topic + "-lease").members().size() == 2;
        }
    }

    @Test
    void aHolderCutOffFromTheCoordinatorGivesTheLeaseUpWithinTheSessionTimeout() throws Exception {
        KafkaBroker own = Brokers.start(Map.of());
        String topic = "lease-cut-" + UUID.randomUUID();
        own.createTopic(topic, 1);
        try (Running holder = new Running(own, topic, "cut")) {
            assertTrue(holder.lease.awaitHeld(() -> false));
            // renewals are confirmed: the lease stays held well past its validity
            await().during(Duration.ofMillis(VALIDITY_MS + 1_000)).atMost(Duration.ofMillis(VALIDITY_MS + 3_000))
                    .until(holder.lease::held);
            long epoch = holder.lease.epoch();

            long cutAt = System.nanoTime();
            Thread stopper = new Thread(own::close, "stop-coordinator");
            stopper.start();
            await().atMost(Duration.ofMillis(SESSION_MS)).until(() -> holder.lost.get() > 0);
            long tookMs = (holder.lostAtNanos.get() - cutAt) / 1_000_000;
            assertFalse(holder.lease.heldAt(epoch));
            assertTrue(tookMs < SESSION_MS, "gave up after " + tookMs + " ms, the session timeout is " + SESSION_MS);
            System.out.println("lease given up " + tookMs + " ms after the coordinator went away");
            stopper.join(60_000);
        } finally {
            own.close();
        }
    }

    @Test
    void aLeaseThatNeverRanClosesQuietly() {
        GroupLease lease = new GroupLease(Map.of("bootstrap.servers", Brokers.shared().bootstrapServers()), "unused",
                "unused-lease", "x", SESSION_MS, HEARTBEAT_MS, POLL_MS, VALIDITY_MS, () -> { },
                new CdcMetrics(new SimpleMeterRegistry(), () -> true, () -> true));
        lease.close();
        lease.close();
        assertFalse(lease.held());
        assertFalse(lease.heldAt(GroupLease.NO_EPOCH));
    }
}
