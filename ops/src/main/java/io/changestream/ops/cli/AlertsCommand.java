package io.changestream.ops.cli;

import io.changestream.alerts.service.AlertService;
import io.changestream.alerts.service.AlertServiceConfig;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code changestream alerts}: one alert-consumer instance (run several for a consumer group). */
@Command(name = "alerts", mixinStandardHelpOptions = true,
        description = {"Run an alert-consumer instance: delivers matching change events once per consumer group.",
                "Settings: alert-consumer/README.md; environment variables ALERTS_<KEY> override the file; every "
                        + "kafka.* key (security.protocol, sasl.*, ssl.*) goes to every Kafka client."})
final class AlertsCommand extends ServiceCommand<AlertServiceConfig> {

    @Override
    AlertServiceConfig load(Path file, Map<String, String> env) {
        return AlertServiceConfig.load(file, env);
    }

    @Override
    AutoCloseable start(AlertServiceConfig config) {
        return AlertService.start(config);
    }

    @Override
    String started(AutoCloseable service) {
        int port = ((AlertService) service).httpPort();
        return "alert-consumer started: http://localhost:" + port + "/api/v1/events/subscriptions, /metrics";
    }
}
