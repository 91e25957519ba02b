package io.changestream.alerts.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.runtime.KeyAssignment;
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

    @Test
    void leastLoadedSpreadsTenThousandRandomKeysEvenlyOverSixtyFourLanes() {
        LaneAssigner a = LaneAssigner.of(KeyAssignment.LEAST_LOADED, 64);
        Random r = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            a.acquire("entity-" + Long.toHexString(Math.floorMod(r.nextLong(), 10_000)));
        }
        int max = 0;
        for (int l = 0; l < 64; l++) {
            max = Math.max(max, a.load(l));
        }
        double mean = 100_000 / 64.0;
        assertTrue(max < mean * 1.10, "busiest lane " + max + " vs mean " + mean);
    }
}
