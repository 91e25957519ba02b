package io.changestream.cdc.engine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lease on the real broker: one holder at a time, a joining standby does not take it, a leaving holder hands over. */
class GroupLeaseIT {

    @Test
    void oneHolderAtATimeAndAGracefulLeaveHandsOver() throws Exception {
        KafkaBroker broker = Brokers.shared();
        String topic = "lease-it-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
        String group = topic + "-lease";
        AtomicInteger firstLost = new AtomicInteger();
        AtomicInteger secondLost = new AtomicInteger();
        GroupLease first = new GroupLease(Map.of("bootstrap.servers", broker.bootstrapServers()), topic, group, 6_000, 100,
                firstLost::incrementAndGet);
        GroupLease second = new GroupLease(Map.of("bootstrap.servers", broker.bootstrapServers()), topic, group, 6_000, 100,
                secondLost::incrementAndGet);
        try {
            first.start();
            assertTrue(first.awaitHeld(() -> false));
            second.start();
            // the standby joins the group; cooperative-sticky assignment leaves the partition with its holder
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> first.held() && !second.held());
            assertEquals(0, firstLost.get(), "joining standby must not revoke the holder");

            first.close();
            assertEquals(1, firstLost.get(), "the holder stops its engine before handing over");
            await().atMost(Duration.ofSeconds(15)).until(second::held);
            assertFalse(first.held());
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void aLeaseThatNeverStartedClosesQuietly() {
        KafkaBroker broker = Brokers.shared();
        GroupLease lease = new GroupLease(Map.of("bootstrap.servers", broker.bootstrapServers()), "unused", "unused-lease", 6_000, 100, () -> { });
        lease.close();
        lease.close();
        assertFalse(lease.held());
    }
}
