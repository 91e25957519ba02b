package io.changestream.alerts.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.TestClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Releases of partitions with deliveries still running (decision 2302: a stop's release waits no longer than it). */
class ReleasesTest {

    private static final TopicPartition TP = new TopicPartition("changes", 0);

    @Test
    void aReleaseDuringAStopWaitsNoLongerThanTheStopThenCancelsTheRequest() {
        TestClock clock = TestClock.runningFrom(Instant.parse("2026-12-01T10:00:00Z"));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Releases releases = new Releases(Duration.ofHours(1), clock, meters);
        Releases.Call call = releases.enter(TP);
        CompletableFuture<String> request = call.track(new CompletableFuture<>()); // a receiver that never answers
        releases.stopWithin(Duration.ZERO);
        long start = System.nanoTime();
        releases.release(List.of(TP));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(5)) < 0,
                "not the hour of pipeline.releaseTimeout");
        assertTrue(request.isCancelled(), "the request still running is cancelled (its exchange aborted)");
        assertEquals(1.0, meters.counter("changestream.alert.release.cancelled").count());
    }
}
