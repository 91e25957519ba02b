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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The runtime's scrape as Prometheus sees it: the Kafka consumer's own client metrics are bound next to the runtime's
 * meters (fetch rate, records consumed, lag per partition, rebalances), the in-flight meters are there, and the
 * whole scrape passes {@code promtool check metrics}. When the runtime closes, the client meters go too. A hot key shows
 * as the deepest lane's depth and the lane's buffer usage, with no key in any tag.
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

    @Test
    void aHotKeyShowsAsTheDeepestLaneAndItsBufferUsageWithoutAKeyTag() throws Exception {
        String group = RuntimeTestSupport.unique("hot-key-group");
        String topic = RuntimeTestSupport.unique("hot-key");
        broker.createTopic(topic, 1);
        List<ProducerRecord<String, String>> records = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            records.add(new ProducerRecord<>(topic, "hot-entity", "v" + i));
        }
        for (int i = 0; i < 10; i++) {
            records.add(new ProducerRecord<>(topic, "k" + i, "w" + i));
        }
        RuntimeTestSupport.produce(broker, topic, records);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AtomicBoolean release = new AtomicBoolean();
        Map<String, CompletableFuture<Outcome>> held = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        AsyncProcessor<String, String> processor = e -> {
            if (e.key().equals("hot-entity") && !release.get()) {
                return held.computeIfAbsent(e.value(), v -> new CompletableFuture<>())
                        .whenComplete((o, t) -> done.incrementAndGet());
            }
            done.incrementAndGet();
            return CompletableFuture.completedFuture(Outcome.success());
        };
        RuntimeConfig config = RuntimeTestSupport.config(broker, topic, group).lanes(4).laneCapacity(100)
                .maxBufferedBytes(1L << 20).statsLogInterval(Duration.ofSeconds(1)).build();
        ch.qos.logback.classic.Logger statsLogger = (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger("io.changestream.runtime.internal.StatsLog");
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        statsLogger.addAppender(lines);
        try (ConsumerRuntime<String, String> r = ConsumerRuntime.asyncBuilder(config, StringDeserializer::new,
                StringDeserializer::new, processor).seed(42).meterRegistry(registry).build().start()) {
            String deepest = "changestream_runtime_lane_queue_deepest{group=\"" + group + "\"}";
            String laneUsage = "changestream_runtime_buffer_usage_ratio{buffer=\"lane\",group=\"" + group + "\"}";
            String bytesUsage = "changestream_runtime_buffer_usage_ratio{buffer=\"bytes\",group=\"" + group + "\"}";
            // the first event of the hot key runs; its 39 later events wait behind it in its lane
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> value(registry.scrape(), deepest) == 39.0
                    && done.get() == 10);
            String scrape = registry.scrape();
            assertEquals(0.39, value(scrape, laneUsage), 1e-9, "39 of the lane's 100");
            assertTrue(value(scrape, bytesUsage) > 0, "buffered bytes of the held events: " + scrape);
            assertTrue(scrape.contains("# HELP changestream_runtime_buffer_usage_ratio "), "with HELP");
            assertTrue(scrape.contains("changestream_runtime_buffer_usage_ratio{buffer=\"delay_queue\",group=\""
                    + group + "\"} 0.0"), scrape);
            assertTrue(!scrape.contains("hot-entity"), "no meter carries the key");
            // the key is named by the periodic INFO line instead, once per interval in which its events piled up
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> List.copyOf(lines.list).stream()
                    .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                    .anyMatch(l -> l.startsWith("runtime stats of group " + group)
                            && l.contains("hot key 'hot-entity' (39 waiting behind it, lane")));
            String line = List.copyOf(lines.list).get(lines.list.size() - 1).getFormattedMessage();
            assertTrue(line.contains(" holds 39 of 100;"), line);
            assertEquals(ch.qos.logback.classic.Level.INFO, lines.list.get(0).getLevel());
            release.set(true);
            held.values().forEach(f -> f.complete(Outcome.success()));
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == 50
                    && value(registry.scrape(), deepest) == 0.0 && value(registry.scrape(), laneUsage) == 0.0);
        } finally {
            statsLogger.detachAppender(lines);
        }
    }

    /** The sample value of the series that starts with {@code series} (name and labels), or NaN. */
    private static double value(String scrape, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
