package io.changestream.alerts.service;

import io.changestream.runtime.ConsumerRuntime;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The service's Prometheus registry with the JVM binders. Two of Micrometer's own meters are denied because
 * {@code promtool check metrics} rejects their names: {@code process.cpu.time} (exported as
 * {@code process_cpu_time_ns_total}, a counter in nanoseconds) and {@code system.cpu.count} (a gauge without a unit
 * suffix that promtool reads as a counter). Every other meter carries a description (HELP text).
 */
final class ServiceMetrics {

    private ServiceMetrics() {
    }

    /** A new registry; the caller closes it. */
    static PrometheusMeterRegistry create() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"));
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("system.cpu.count"));
        // every filter before the first meter (Micrometer warns at each start otherwise)
        registry.config().meterFilter(new KafkaMeterDescriptions());
        ConsumerRuntime.prepareMeters(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }
}
