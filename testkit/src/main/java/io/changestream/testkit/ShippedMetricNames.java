package io.changestream.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names operators read: those the shipped Prometheus rules, their tests and the Grafana dashboard name, so
 * each module's meter catalogue test can hold them to its catalogue. Paths are relative to a module's directory.
 */
public final class ShippedMetricNames {

    /** The rules, their tests and the dashboard. */
    public static final List<Path> FILES = List.of(Path.of("..", "ops", "prometheus", "rules.yml"),
            Path.of("..", "ops", "prometheus", "rules.test.yml"),
            Path.of("..", "ops", "grafana", "dashboards", "changestream.json"));

    private ShippedMetricNames() {
    }

    /**
     * Every metric name matching {@code metric} in {@link #FILES}, each with the file it first appears in; a prefix in
     * a name regex ({@code __name__=~"cdc_.*"}, a match ending in {@code _}) is no name.
     */
    public static Map<String, String> named(Pattern metric) throws IOException {
        Map<String, String> out = new TreeMap<>();
        for (Path file : FILES) {
            Matcher m = metric.matcher(Files.readString(file));
            while (m.find()) {
                if (!m.group().endsWith("_")) {
                    out.putIfAbsent(m.group(), file.getFileName().toString());
                }
            }
        }
        return out;
    }

    /** The names of {@link #named} that {@code known} lacks, each as {@code name (file)}. */
    public static List<String> unknown(Pattern metric, java.util.Set<String> known) throws IOException {
        return named(metric).entrySet().stream().filter(e -> !known.contains(e.getKey()))
                .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
    }
}
