package io.changestream.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The threading contract under load: one consumer thread (the test thread) tracks and commits, several processor
 * threads mark offsets done in random order, sometimes twice. Whatever the interleaving, every committed position
 * must only cover offsets whose processing finished, must never move backwards, and must end at max + 1.
 */
class StateManagerConcurrencyTest {

    private static final int PROCESSORS = 4;
    private static final int OFFSETS_PER_PARTITION = 200_000;
    private static final int PARTITIONS = 2;
    private static final int QUEUE_CAPACITY = 512;
    private static final int COMMIT_EVERY = 64;
    private static final int PROCESSOR_BATCH = 32;
    private static final long JOIN_TIMEOUT_SECONDS = 60;
    private static final long POISON = -1;

    private final ExecutorService pool = Executors.newFixedThreadPool(PROCESSORS);

    @AfterEach
    void stopProcessors() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(JOIN_TIMEOUT_SECONDS, TimeUnit.SECONDS), "processors did not stop");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentDonesNeverLetTheCommitPassAnUnfinishedOffset() throws Exception {
        StateManager<Integer> manager = new StateManager<>(Clock.systemUTC());
        List<AtomicIntegerArray> finished = new ArrayList<>();
        List<BlockingQueue<long[]>> queues = new ArrayList<>();
        List<Future<?>> processors = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            manager.assign(p);
            finished.add(new AtomicIntegerArray(OFFSETS_PER_PARTITION));
        }
        for (int i = 0; i < PROCESSORS; i++) {
            BlockingQueue<long[]> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
            queues.add(queue);
            processors.add(pool.submit(() -> process(queue, manager, finished)));
        }

        Random random = new Random(1234);
        long[] verifiedUpTo = new long[PARTITIONS];
        for (int offset = 0; offset < OFFSETS_PER_PARTITION; offset++) {
            for (int p = 0; p < PARTITIONS; p++) {
                manager.track(p, offset);
                queues.get(random.nextInt(PROCESSORS)).put(new long[] {p, offset});
            }
            if (offset % COMMIT_EVERY == 0) {
                for (int p = 0; p < PARTITIONS; p++) {
                    verifiedUpTo[p] = checkCommit(manager, p, finished.get(p), verifiedUpTo[p], offset);
                }
            }
        }
        for (BlockingQueue<long[]> queue : queues) {
            queue.put(new long[] {POISON, POISON});
        }
        for (Future<?> processor : processors) {
            processor.get(JOIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            checkCommit(manager, p, finished.get(p), verifiedUpTo[p], OFFSETS_PER_PARTITION - 1);
            assertEquals(OptionalLong.of(OFFSETS_PER_PARTITION), manager.committable(p));
            assertEquals(0, manager.inFlightCount(p));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void donesRacingARevokeNeverResurrectThePartition() throws Exception {
        StateManager<Integer> manager = new StateManager<>(Clock.systemUTC());
        manager.assign(0);
        for (int offset = 0; offset < OFFSETS_PER_PARTITION; offset++) {
            manager.track(0, offset);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> processors = new ArrayList<>();
        for (int i = 0; i < PROCESSORS; i++) {
            int stripe = i;
            processors.add(pool.submit(() -> {
                start.await();
                for (long offset = stripe; offset < OFFSETS_PER_PARTITION; offset += PROCESSORS) {
                    manager.done(0, offset);
                }
                return null;
            }));
        }
        start.countDown();
        manager.committable(0);
        manager.revoke(0);
        for (Future<?> processor : processors) {
            processor.get(JOIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        assertEquals(Set.of(), manager.partitions());
        assertEquals(PartitionSnapshot.UNASSIGNED, manager.snapshot(0));

        manager.assign(0);
        assertEquals(OptionalLong.empty(), manager.committable(0));
        assertEquals(0, manager.inFlightCount(0));
    }

    /** Checks that every offset below the committed position finished, and that it did not move backwards. */
    private static long checkCommit(StateManager<Integer> manager, int partition, AtomicIntegerArray finished,
            long verifiedUpTo, long highestTracked) {
        OptionalLong committable = manager.committable(partition);
        if (committable.isEmpty()) {
            assertEquals(0, verifiedUpTo, "the committable position disappeared");
            return verifiedUpTo;
        }
        long position = committable.getAsLong();
        assertTrue(position >= verifiedUpTo, "moved backwards: " + verifiedUpTo + " -> " + position);
        assertTrue(position <= highestTracked + 1, "passed the highest tracked offset " + highestTracked);
        for (long offset = verifiedUpTo; offset < position; offset++) {
            if (finished.get((int) offset) == 0) {
                fail("partition " + partition + " committable " + position + " passes unfinished offset " + offset);
            }
        }
        return position;
    }

    /** A processor: takes a batch, finishes it in shuffled order, repeats some completions. */
    private static Void process(BlockingQueue<long[]> queue, StateManager<Integer> manager,
            List<AtomicIntegerArray> finished) throws InterruptedException {
        List<long[]> batch = new ArrayList<>(PROCESSOR_BATCH);
        while (true) {
            batch.clear();
            batch.add(queue.take());
            queue.drainTo(batch, PROCESSOR_BATCH - 1);
            boolean last = batch.removeIf(work -> work[0] == POISON);
            Collections.shuffle(batch, ThreadLocalRandom.current());
            for (long[] work : batch) {
                int partition = (int) work[0];
                long offset = work[1];
                finished.get(partition).set((int) offset, 1); // the work is finished before it is reported
                manager.done(partition, offset);
                if (ThreadLocalRandom.current().nextInt(16) == 0) {
                    manager.done(partition, offset); // a duplicate completion
                }
            }
            if (last) {
                return null;
            }
        }
    }
}
