package io.changestream.runtime.internal;

import io.changestream.runtime.Backoff;
import io.changestream.runtime.KeyAssignment;
import io.changestream.runtime.Outcome;
import io.changestream.state.StateManager;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Dev aid, not a test: the CPU a lane spends per no-op record, without a broker or a fetch (which dominate and swing
 * {@code ops/bench consumer} on a shared machine). A feeder thread does what the consumer thread does after a poll
 * (records of one partition, tracked in one call, work items batched per lane) and four lanes (HASH) process them
 * with a processor that does nothing. Prints, per round, the lanes' and the feeder's CPU nanoseconds per record.
 * Run: {@code java -cp <consumer-runtime test classpath> io.changestream.runtime.internal.LaneCostBench [records]}.
 */
public final class LaneCostBench {

    private static final int LANES = 4;
    private static final int PARTITIONS = 12;
    private static final int POLL = 500;

    private LaneCostBench() {
    }

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        String[] keys = new String[10_000];
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "entity-" + Long.toHexString(random.nextLong());
        }
        String value = "{\"seq\":1,\"pad\":\"" + "x".repeat(160) + "\"}";
        for (int round = 0; round < rounds; round++) {
            System.out.println(round(records, keys, value, random));
        }
    }

    private static String round(int records, String[] keys, String value, SplittableRandom random)
            throws InterruptedException {
        Clock clock = Clock.systemUTC();
        StateManager<OwnedPartition> state = new StateManager<>(clock);
        LaneAssigner assigner = LaneAssigner.of(KeyAssignment.HASH, LANES);
        LongAdder done = new LongAdder();
        Processing<String, String> ctx = new Processing<>(e -> {
            done.increment();
            return Outcome.success();
        }, null, (e, f) -> { }, state, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8), 2.0, 0.0), 5,
                30_000, new DelayScheduler(), assigner, 64, new CallSlots(1024), new LongAdder(),
                new RuntimeMetrics(new SimpleMeterRegistry(), "g"), clock, e -> { });
        List<LaneLoop<String, String>> lanes = new ArrayList<>();
        String prefix = "cost-" + System.nanoTime();
        for (int i = 0; i < LANES; i++) {
            lanes.add(new LaneLoop<>(i, new Lane<>(1_000), ctx, new SplittableRandom(i), prefix));
        }
        List<OwnedPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            OwnedPartition op = new OwnedPartition(new TopicPartition("bench", p));
            state.assign(op);
            partitions.add(op);
        }
        lanes.forEach(LaneLoop::start);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long feederStart = threads.getCurrentThreadCpuTime();
        long wallStart = System.nanoTime();
        long[] next = new long[PARTITIONS];
        long[] offsets = new long[POLL];
        List<List<WorkItem<String, String>>> batches = new ArrayList<>();
        for (int i = 0; i < LANES; i++) {
            batches.add(new ArrayList<>());
        }
        for (int fed = 0; fed < records; fed += POLL) {
            int p = (fed / POLL) % PARTITIONS;
            OwnedPartition op = partitions.get(p);
            for (int i = 0; i < POLL; i++) {
                offsets[i] = next[p] + i;
            }
            state.track(op, offsets, POLL);
            state.committable(op);
            long polledAt = System.nanoTime();
            for (int i = 0; i < POLL; i++) {
                String key = keys[random.nextInt(keys.length)];
                ConsumerRecord<String, String> r = new ConsumerRecord<>("bench", p, next[p] + i, key, value);
                WorkItem<String, String> item = new WorkItem<>(r, op, key, assigner.acquire(key), polledAt, 0);
                batches.get(item.lane).add(item);
            }
            next[p] += POLL;
            for (int i = 0; i < LANES; i++) {
                List<WorkItem<String, String>> batch = batches.get(i);
                int from = 0;
                while (from < batch.size()) {
                    int n = lanes.get(i).lane.offer(batch.subList(from, batch.size()));
                    from += n;
                    if (n == 0) {
                        Thread.onSpinWait();
                    }
                }
                batch.clear();
            }
        }
        while (done.sum() < records) {
            Thread.sleep(1);
        }
        long wall = System.nanoTime() - wallStart;
        long feeder = threads.getCurrentThreadCpuTime() - feederStart;
        long laneCpu = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                laneCpu += threads.getThreadCpuTime(info.getThreadId());
            }
        }
        for (LaneLoop<String, String> lane : lanes) {
            lane.stop(1_000);
        }
        return String.format(Locale.ROOT, "lanes %5.0f ns/record, feeder %5.0f ns/record, %6.0f k records/s",
                (double) laneCpu / records, (double) feeder / records, records / (wall / 1e6));
    }
}
