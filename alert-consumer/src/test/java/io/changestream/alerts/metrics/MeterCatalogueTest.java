package io.changestream.alerts.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.runtime.metrics.RuntimeMeter;
import io.changestream.testkit.ShippedMetricNames;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The meter catalogues against what operators read: every changestream metric the shipped Prometheus rules, their
 * tests and the Grafana dashboard name is a meter of {@link AlertMeter} or the runtime's {@link RuntimeMeter}; the
 * catalogue's names are unique and its help is written. (That every meter a running service exposes is in the
 * catalogue, with its help, is checked on a real scrape by {@code AlertEndToEndIT}.)
 */
public class MeterCatalogueTest {

    private static final Pattern METRIC = Pattern.compile("changestream_(?:alert|subscriptions|runtime)[a-z0-9_]*");

    /** The help of every Prometheus family an {@link AlertMeter} can show as (a timer's buckets and max …). */
    public static Map<String, String> alertHelpByFamily() {
        Map<String, String> out = new HashMap<>();
        for (AlertMeter m : AlertMeter.values()) {
            familiesOf(m.meterName(), m.prometheusName()).forEach(f -> out.put(f, m.help()));
        }
        return out;
    }

    /** The Prometheus families a catalogue meter can show as (a timer's buckets, a gauge's base unit …). */
    static Set<String> families() {
        Set<String> out = new HashSet<>(alertHelpByFamily().keySet());
        for (RuntimeMeter m : RuntimeMeter.values()) {
            String base = m.meterName().replace('.', '_');
            out.addAll(familiesOf(m.meterName(), switch (m.type()) {
                case COUNTER -> base + "_total";
                case TIMER -> base + "_seconds";
                case GAUGE -> base;
            }));
        }
        return out;
    }

    private static List<String> familiesOf(String meterName, String prometheusName) {
        String base = meterName.replace('.', '_');
        return List.of(prometheusName, prometheusName + "_max", prometheusName + "_bucket", prometheusName + "_count",
                prometheusName + "_sum", base, base + "_seconds", base + "_bytes");
    }

    @Test
    void everyMetricTheRulesAndTheDashboardNameIsCatalogued() throws IOException {
        Set<String> known = families();
        assertTrue(ShippedMetricNames.named(METRIC).size() > 20, "the rules and the dashboard name changestream metrics");
        assertEquals(List.of(), ShippedMetricNames.unknown(METRIC, known),
                "metrics named by rules or the dashboard that no meter catalogue declares");
    }

    @Test
    void namesAreUniqueAndEveryMeterIsExplained() {
        Set<String> names = new HashSet<>();
        for (AlertMeter m : AlertMeter.values()) {
            assertTrue(names.add(m.meterName()), "declared twice: " + m.meterName());
            assertTrue(m.meterName().startsWith("changestream."), m.meterName());
            assertTrue(m.help().length() > 20, m + " has no real help text");
            assertTrue(!m.meterName().endsWith(".total") && !m.meterName().endsWith(".seconds"),
                    m + ": the unit suffix is Prometheus's to add");
        }
    }
}
