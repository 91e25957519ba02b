package io.changestream.runtime.internal;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Prometheus-clean Kafka client metrics ({@code KafkaClientMetrics}): Kafka names a few metrics with a unit that is
 * not the base one ({@code io-time-ns-total}, {@code start-time-ms}); {@code promtool check metrics} refuses them and
 * a filter cannot rescale a gauge, so they are left out (the same figures exist unit-less, e.g.
 * {@code io-ratio}, {@code fetch-latency-avg}). A gauge named {@code connection-count} becomes
 * {@code connection-number}. Installed once per registry; touches only {@code kafka.*} meters.
 */
final class KafkaMeterNames implements MeterFilter {

    private static final Set<MeterRegistry> INSTALLED = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<>()));

    private KafkaMeterNames() {
    }

    /** Adds the renaming to {@code registry} unless it has it; before any Kafka meter is bound. */
    static void installOn(MeterRegistry registry) {
        if (INSTALLED.add(registry)) {
            registry.config().meterFilter(new KafkaMeterNames());
        }
    }

    @Override
    public MeterFilterReply accept(Meter.Id id) {
        String name = id.getName();
        if (name.startsWith("kafka.") && (name.contains(".ns.") || name.endsWith(".ns")
                || name.contains(".ms.") || name.endsWith(".ms"))) {
            return MeterFilterReply.DENY;
        }
        return MeterFilterReply.NEUTRAL;
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        String name = id.getName();
        if (!name.startsWith("kafka.")) {
            return id;
        }
        String renamed = rename(name);
        return renamed.equals(name) ? id : id.withName(renamed);
    }

    static String rename(String name) {
        String[] tokens = name.split("\\.");
        StringBuilder out = new StringBuilder(name.length() + 16);
        for (int i = 0; i < tokens.length; i++) {
            String t = switch (tokens[i]) {
                case "count" -> i == tokens.length - 1 ? "number" : "count";
                default -> tokens[i];
            };
            if (i > 0) {
                out.append('.');
            }
            out.append(t);
        }
        return out.toString();
    }
}
