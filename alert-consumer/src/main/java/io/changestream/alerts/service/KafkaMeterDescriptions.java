package io.changestream.alerts.service;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Gives a Kafka client meter that Kafka left without a description (the producer's per-node metrics, for one) a
 * generic one, so every exposed meter has a HELP text ({@code promtool check metrics}). Touches only {@code kafka.*}
 * meters without a description; installed on the service's registry before the producers' metrics are bound.
 */
final class KafkaMeterDescriptions implements MeterFilter {

    @Override
    public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith("kafka.") || (id.getDescription() != null && !id.getDescription().isBlank())) {
            return id;
        }
        return new Meter.Id(id.getName(), Tags.of(id.getTags()), id.getBaseUnit(),
                "Kafka client metric " + id.getName().substring("kafka.".length()) + " (no description from Kafka)",
                id.getType());
    }
}
