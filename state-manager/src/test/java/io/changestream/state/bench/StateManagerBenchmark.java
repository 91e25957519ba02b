package io.changestream.state.bench;

import io.changestream.state.StateManager;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Track+done pairs per second, single-threaded: {@value #IN_FLIGHT} offsets are always in flight and each pair
 * completes a random one of them (so completions come out of order) and tracks the next offset; the committable
 * position is computed every {@value #COMMIT_EVERY} pairs. One operation is one pair. The baseline does the same on a
 * Parallel-Consumer-style skip list.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class StateManagerBenchmark {

    /** Offsets concurrently in flight. */
    static final int IN_FLIGHT = 64;
    /** Pairs between two computations of the committable offset. */
    static final int COMMIT_EVERY = 64;
    /** Size of the precomputed sequence of random slots (a power of two). */
    private static final int RANDOM_SLOTS = 1 << 16;

    /** The partition identity, shaped like Kafka's TopicPartition (which caches its hash code). */
    static final class Partition {
        private final String topic;
        private final int partition;
        private final int hash;

        Partition(String topic, int partition) {
            this.topic = topic;
            this.partition = partition;
            this.hash = 31 * topic.hashCode() + partition;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return this == other || other instanceof Partition p && p.partition == partition && p.topic.equals(topic);
        }

        @Override
        public String toString() {
            return topic + "-" + partition;
        }
    }

    static final Partition PARTITION = new Partition("cs.change-events", 0);

    /** The in-flight window: which offset occupies each of the {@value #IN_FLIGHT} slots, and the random order. */
    @State(Scope.Thread)
    public static class Window {
        final long[] slots = new long[IN_FLIGHT];
        final int[] order = new int[RANDOM_SLOTS];
        int cursor;
        long next;

        @Setup
        public void fill() {
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < RANDOM_SLOTS; i++) {
                order[i] = random.nextInt(IN_FLIGHT);
            }
            for (int i = 0; i < IN_FLIGHT; i++) {
                slots[i] = i;
            }
            next = IN_FLIGHT;
        }
    }

    /**
     * Secondary counters: pairs done and CPU time the benchmark thread used in each iteration, so that pairs per
     * CPU-second can be read apart from the wall-clock score, which other load on a shared machine lowers.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class CpuTime {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
        public long pairs;
        public long cpuNanos;
        private long start;

        @Setup(Level.Iteration)
        public void start() {
            pairs = 0;
            cpuNanos = 0;
            start = THREADS.getCurrentThreadCpuTime();
        }

        @TearDown(Level.Iteration)
        public void stop() {
            cpuNanos = THREADS.getCurrentThreadCpuTime() - start;
        }
    }

    @State(Scope.Thread)
    public static class TwoHeaps {
        final StateManager<Partition> manager = new StateManager<>(Clock.systemUTC());

        @Setup
        public void assign() {
            manager.assign(PARTITION);
            for (long offset = 0; offset < IN_FLIGHT; offset++) {
                manager.track(PARTITION, offset);
            }
        }
    }

    @State(Scope.Thread)
    public static class SkipList {
        final SkipListOffsets<Partition> offsets = new SkipListOffsets<>();

        @Setup
        public void assign() {
            offsets.assign(PARTITION);
            for (long offset = 0; offset < IN_FLIGHT; offset++) {
                offsets.track(PARTITION, offset);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(COMMIT_EVERY)
    public long stateManager(Window window, TwoHeaps state, CpuTime cpu) {
        cpu.pairs += COMMIT_EVERY;
        StateManager<Partition> manager = state.manager;
        for (int i = 0; i < COMMIT_EVERY; i++) {
            int slot = window.order[window.cursor++ & (RANDOM_SLOTS - 1)];
            manager.done(PARTITION, window.slots[slot]);
            long offset = window.next++;
            manager.track(PARTITION, offset);
            window.slots[slot] = offset;
        }
        return manager.committable(PARTITION).orElse(-1);
    }

    @Benchmark
    @OperationsPerInvocation(COMMIT_EVERY)
    public long skipListBaseline(Window window, SkipList state, CpuTime cpu) {
        cpu.pairs += COMMIT_EVERY;
        SkipListOffsets<Partition> offsets = state.offsets;
        for (int i = 0; i < COMMIT_EVERY; i++) {
            int slot = window.order[window.cursor++ & (RANDOM_SLOTS - 1)];
            offsets.done(PARTITION, window.slots[slot]);
            long offset = window.next++;
            offsets.track(PARTITION, offset);
            window.slots[slot] = offset;
        }
        return offsets.committable(PARTITION);
    }
}
