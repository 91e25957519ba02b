package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void withoutJitterTheDelayDoublesUpToTheCap() {
        Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.0);
        SplittableRandom r = new SplittableRandom(1);
        assertEquals(100, b.delayMillis(1, r));
        assertEquals(200, b.delayMillis(2, r));
        assertEquals(400, b.delayMillis(3, r));
        assertEquals(800, b.delayMillis(4, r));
        assertEquals(1_000, b.delayMillis(5, r));
        assertEquals(1_000, b.delayMillis(500, r));
    }

    @Test
    void doublingWaitsTheInitialFirstThenDoublesToTheCapWithoutJitter() {
        Backoff b = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(5));
        assertEquals(Duration.ofSeconds(1), b.after(0));
        assertEquals(Duration.ofSeconds(1), b.after(1));
        assertEquals(Duration.ofSeconds(2), b.after(2));
        assertEquals(Duration.ofSeconds(4), b.after(3));
        assertEquals(Duration.ofSeconds(5), b.after(4));
        assertEquals(Duration.ofSeconds(5), b.after(Integer.MAX_VALUE));
    }

    @Property(tries = 300)
    void jitteredDelayStaysWithinItsSpreadAndNeverAboveTheCap(@ForAll @IntRange(min = 1, max = 40) int attempt,
                                                              @ForAll long seed) {
        Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30), 2.0, 0.2);
        long base = (long) Math.min(100 * Math.pow(2, attempt - 1), 30_000);
        long d = b.delayMillis(attempt, new SplittableRandom(seed));
        assertTrue(d >= Math.floor(base * 0.8) && d <= Math.min(30_000, Math.ceil(base * 1.2)),
                () -> "attempt " + attempt + ": " + d + " around " + base);
    }
}
