package io.changestream.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.KeyAssignment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LaneAssignerTest {

    /** Random acquire/release interleavings: a key never has events in two lanes, and loads match a model. */
    @Property(tries = 200)
    void aKeyKeepsItsLaneWhileItHasEventsInTheRuntime(@ForAll @IntRange(min = 1, max = 16) int lanes,
                                                       @ForAll @IntRange(min = 1, max = 50) int keys,
                                                       @ForAll long seed) {
        LaneAssigner a = LaneAssigner.of(KeyAssignment.LEAST_LOADED, lanes);
        Random r = new Random(seed);
        Map<Integer, ArrayDeque<Integer>> inRuntime = new HashMap<>(); // key -> lanes of its events, FIFO
        int[] load = new int[lanes];
        for (int step = 0; step < 2_000; step++) {
            int key = r.nextInt(keys);
            ArrayDeque<Integer> events = inRuntime.computeIfAbsent(key, k -> new ArrayDeque<>());
            if (events.isEmpty() || r.nextBoolean()) {
                int lane = a.acquire(key);
                if (!events.isEmpty()) {
                    assertEquals(events.peekFirst(), lane, "key " + key + " moved lanes with events in flight");
                }
                events.addLast(lane);
                load[lane]++;
            } else {
                int lane = events.pollFirst();
                a.release(key, lane);
                load[lane]--;
            }
            for (int l = 0; l < lanes; l++) {
                assertEquals(load[l], a.load(l));
            }
        }
    }

    /**
     * 100,000 events of 10,000 random keys flowing through 64 lanes with 6,400 in flight (each leaves after 6,400
     * newer ones arrived): the work each lane received stays within 10% of the mean, where fixed hashing of the
     * same keys is ~20% above it.
     */
    @Test
    void leastLoadedSpreadsTenThousandRandomKeysEvenlyOverSixtyFourLanes() {
        LaneAssigner a = LaneAssigner.of(KeyAssignment.LEAST_LOADED, 64);
        Random r = new Random(7);
        String[] keys = new String[10_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "entity-" + Long.toHexString(r.nextLong());
        }
        int window = 6_400;
        String[] inFlightKey = new String[window];
        int[] inFlightLane = new int[window];
        int[] received = new int[64];
        for (int i = 0; i < 100_000; i++) {
            int slot = i % window;
            if (inFlightKey[slot] != null) {
                a.release(inFlightKey[slot], inFlightLane[slot]);
            }
            String key = keys[r.nextInt(keys.length)];
            int lane = a.acquire(key);
            inFlightKey[slot] = key;
            inFlightLane[slot] = lane;
            received[lane]++;
        }
        int max = java.util.Arrays.stream(received).max().orElseThrow();
        double mean = 100_000 / 64.0;
        assertTrue(max < mean * 1.10, "busiest lane received " + max + " vs mean " + mean);
    }
}
