package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.awaitility.Awaitility;

/**
 * Per-key order against the real broker, property-style: random lane counts, key counts, processing delays and
 * retries. Every key's events succeed in offset order, each exactly once, and every attempt sequence of a key never
 * goes back in offsets; the group ends committed at the log end.
 */
class KeyOrderIT {

    private final KafkaBroker broker = Brokers.shared();

    @Property(tries = 4, seed = "4711")
    void everyKeyIsProcessedInOffsetOrderExactlyOnce(@ForAll @IntRange(min = 1, max = 32) int lanes,
                                                     @ForAll @IntRange(min = 1, max = 300) int keys,
                                                     @ForAll @IntRange(min = 0, max = 30) int retryPercent,
                                                     @ForAll long seed) throws Exception {
        String group = RuntimeTestSupport.unique("order-group");
        int records = 3_000;
        String topic = RuntimeTestSupport.keyedTopic(broker, "order", 6, records, keys);

        Map<String, List<Long>> succeeded = new ConcurrentHashMap<>();
        Map<String, List<Long>> attempted = new ConcurrentHashMap<>();
        AtomicInteger retries = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group)
                .lanes(lanes).laneCapacity(50).consumerThreads(2).maxAttempts(1_000).build();
        ThreadLocal<Random> random = ThreadLocal.withInitial(() -> new Random(seed ^ Thread.currentThread().getId()));
        try (ConsumerRuntime<String, String> runtime = RuntimeTestSupport.runtime(config, event -> {
            attempted.computeIfAbsent(event.key(), k -> Collections.synchronizedList(new ArrayList<>())).add(event.offset());
            Random r = random.get();
            if (r.nextInt(100) < 20) {
                Thread.sleep(r.nextInt(3));
            }
            if (event.attempt() < 3 && r.nextInt(100) < retryPercent) {
                retries.incrementAndGet();
                if (r.nextBoolean()) {
                    throw new RetryLaterException("flaky");
                }
                return Outcome.retryAfter(Duration.ofMillis(r.nextInt(10)), "flaky");
            }
            succeeded.computeIfAbsent(event.key(), k -> Collections.synchronizedList(new ArrayList<>())).add(event.offset());
            return Outcome.success();
        }).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> succeeded.values().stream().mapToInt(List::size).sum() >= records);
            RuntimeTestSupport.awaitCommittedToTheEnd(broker, topic, group, Duration.ofSeconds(10));
        }

        assertEquals(records, succeeded.values().stream().mapToInt(List::size).sum());
        assertEquals(Math.min(keys, records), succeeded.size());
        succeeded.forEach((key, offsets) -> assertEquals(offsets.stream().sorted().distinct().toList(), offsets,
                "successes of " + key + " in offset order, each once"));
        attempted.forEach((key, offsets) -> assertEquals(offsets.stream().sorted().toList(), offsets,
                "attempts of " + key + " never go back"));
    }
}
