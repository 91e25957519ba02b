package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The runtime's scrape as Prometheus sees it: the Kafka consumer's own client metrics are bound next to the runtime's
 * meters (fetch rate, records consumed, lag per partition, rebalances), the in-flight meters are there, and the
 * whole scrape passes {@code promtool check metrics}. When the runtime closes, the client meters go too.
 */
class ClientMetricsIT {

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void kafkaClientMetricsAreScrapedWithTheRuntimesAndPassPromtool() throws Exception {
        String group = RuntimeTestSupport.unique("client-metrics-group");
        String topic = RuntimeTestSupport.keyedTopic(broker, "client-metrics", 2, 200, 10);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicInteger processed = new AtomicInteger();
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).kafka("client.id", "metrics-it")
                .build();
        String scrape;
        try (ConsumerRuntime<String, String> r = RuntimeTestSupport.runtime(config, e -> {
            processed.incrementAndGet();
            return Outcome.success();
        }).meterRegistry(registry).build().start()) {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> processed.get() == 200
                    && registry.scrape().contains("kafka_consumer_fetch_manager_records_consumed_total{"));
            scrape = registry.scrape();
        }
        assertTrue(scrape.contains("# HELP kafka_consumer_fetch_manager_records_consumed_total"), "with HELP");
        assertTrue(scrape.contains("client_id=\"metrics-it-0\""), "tagged with the consumer thread's client id");
        assertTrue(scrape.contains("changestream_runtime_buffered_bytes{"));
        assertTrue(scrape.contains("changestream_runtime_calls_running{"));
        Path file = Files.createTempFile("runtime-scrape", ".prom");
        try {
            Files.writeString(file, scrape);
            Process p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(file.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool finished");
            assertEquals(0, p.exitValue(), "promtool check metrics:\n" + out);
        } finally {
            Files.deleteIfExists(file);
        }
        assertTrue(registry.getMeters().stream().noneMatch(m -> m.getId().getName().startsWith("kafka.consumer")),
                "a closed runtime leaves no client meters behind");
    }
}
