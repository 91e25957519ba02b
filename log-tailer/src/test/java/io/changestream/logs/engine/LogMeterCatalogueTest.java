package io.changestream.logs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.ShippedMetricNames;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link LogMetrics} is the log-tailer's meter catalogue: every {@code logtailer_*} metric the shipped Prometheus rules,
 * their tests and the Grafana dashboard name is one it registers, seen on a real Prometheus scrape with every meter
 * registered (the lazily tagged ones included), and each has its help.
 */
class LogMeterCatalogueTest {

    private static final Pattern METRIC = Pattern.compile("logtailer_[a-z0-9_]*");
    private static final Pattern FAMILY = Pattern.compile("^# TYPE (\\S+) ", Pattern.MULTILINE);

    @Test
    void everyMetricTheRulesAndTheDashboardNameIsOneTheCatalogueRegisters() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LogMetrics metrics = new LogMetrics(registry);
        metrics.gauges(() -> 1, () -> 2);
        metrics.backendRead("s3");
        metrics.streamEnded("finished");
        String scrape = registry.scrape();
        Set<String> known = new HashSet<>();
        Matcher family = FAMILY.matcher(scrape);
        while (family.find()) {
            String name = family.group(1);
            known.addAll(List.of(name, name + "_total", name + "_count", name + "_sum", name + "_max",
                    name + "_bucket"));
        }
        assertTrue(known.contains("logtailer_refusals_total"), scrape);
        assertTrue(!ShippedMetricNames.named(METRIC).isEmpty(), "the rules and the dashboard name log-tailer metrics");
        assertEquals(List.of(), ShippedMetricNames.unknown(METRIC, known),
                "logtailer metrics named by rules or the dashboard that LogMetrics never registers");
        assertTrue(scrape.contains("# HELP logtailer_"), scrape);
        assertTrue(!Pattern.compile("^# HELP logtailer_\\S+ *$", Pattern.MULTILINE).matcher(scrape).find(),
                "every meter has its help: " + scrape);
    }
}
