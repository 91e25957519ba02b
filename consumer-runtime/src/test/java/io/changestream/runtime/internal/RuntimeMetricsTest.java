package io.changestream.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.metrics.RuntimeMeter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The catalogue as Prometheus scrapes it: every meter present, with HELP text and Prometheus names. */
class RuntimeMetricsTest {

    @Test
    void everyCataloguedMeterIsScrapedWithItsDescription() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RuntimeMetrics metrics = new RuntimeMetrics(registry, "alerts");
        metrics.gauge(RuntimeMeter.LANE_QUEUE_LENGTH, Tags.of("lane", "0"), new Lane<String, String>(4), Lane::size);
        metrics.gauge(RuntimeMeter.DELAY_QUEUE_SIZE, Tags.empty(), new DelayScheduler(), DelayScheduler::size);
        metrics.gauge(RuntimeMeter.PAUSED_PARTITIONS, Tags.empty(), this, x -> 0);
        metrics.gauge(RuntimeMeter.CALLS_RUNNING, Tags.empty(), new CallSlots(4), CallSlots::used);
        metrics.gauge(RuntimeMeter.BUFFERED_BYTES, Tags.empty(), this, x -> 0);
        metrics.gauge(RuntimeMeter.LANE_QUEUE_DEEPEST, Tags.empty(), this, x -> 7);
        metrics.gauge(RuntimeMeter.BUFFER_USAGE, Tags.of("buffer", "lane"), this, x -> 0.25);
        OwnedPartition p = new OwnedPartition(new TopicPartition("cs.changes", 3));
        p.committed = 40;
        p.highestTracked = 49;
        List<Meter> perPartition = metrics.partitionGauges(p);
        metrics.polled.increment(10);

        String scrape = registry.scrape();
        for (RuntimeMeter m : RuntimeMeter.values()) {
            String base = m.meterName().replace('.', '_');
            String name = switch (m.type()) {
                case COUNTER -> base + "_total";
                case TIMER -> base + "_seconds";
                case GAUGE -> base;
            };
            assertTrue(scrape.contains("# HELP " + name + " " + m.description()), () -> "HELP of " + name);
        }
        assertTrue(scrape.contains("changestream_runtime_records_polled_total{group=\"alerts\"} 10.0"));
        assertTrue(scrape.contains(
                "changestream_runtime_commit_lag{group=\"alerts\",partition=\"3\",topic=\"cs.changes\"} 10.0"));
        assertTrue(scrape.contains("changestream_runtime_processing_seconds_bucket{"), "a histogram, not a summary");
        assertTrue(scrape.contains("changestream_runtime_lane_queue_deepest{group=\"alerts\"} 7.0"), scrape);
        assertTrue(scrape.contains("changestream_runtime_buffer_usage_ratio{buffer=\"lane\",group=\"alerts\"} 0.25"),
                scrape);

        metrics.remove(perPartition);
        assertFalse(registry.scrape().contains("partition=\"3\""), "a revoked partition's gauges are removed");
        metrics.close();
        assertEquals(0, registry.getMeters().size(), "close removes every meter the runtime registered");
    }
}
