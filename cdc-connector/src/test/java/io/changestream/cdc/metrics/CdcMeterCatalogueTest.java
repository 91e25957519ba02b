package io.changestream.cdc.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.ShippedMetricNames;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link CdcMeter} is the cdc-connector's meter catalogue: every {@code cdc_*} metric the shipped Prometheus rules,
 * their tests and the Grafana dashboard name is one of its meters (in any of the families Prometheus shows a meter
 * as: {@code _total}, a base unit, a timer's {@code _count}/{@code _sum}/{@code _max}/{@code _bucket}); names are
 * unique and every meter is explained.
 */
class CdcMeterCatalogueTest {

    private static final Pattern METRIC = Pattern.compile("cdc_[a-z0-9_]*");

    @Test
    void everyMetricTheRulesAndTheDashboardNameIsCatalogued() throws Exception {
        Set<String> known = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (CdcMeter m : CdcMeter.values()) {
            assertTrue(names.add(m.meterName()), "declared twice: " + m.meterName());
            assertTrue(m.description().length() > 20, m + " has no real help text");
            String base = m.meterName().replace('.', '_') + (m.baseUnit() == null ? "" : "_" + m.baseUnit());
            known.addAll(List.of(base, base + "_total", base + "_count", base + "_sum", base + "_max",
                    base + "_bucket"));
        }
        assertTrue(ShippedMetricNames.named(METRIC).size() > 3, "the rules and the dashboard name cdc metrics");
        assertEquals(List.of(), ShippedMetricNames.unknown(METRIC, known),
                "cdc metrics named by rules or the dashboard that CdcMeter does not declare");
    }
}
