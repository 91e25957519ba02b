package io.changestream.ops.dev;

import io.changestream.ops.UsageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the embedded dev stack ({@code changestream dev}); every bound is one of these.
 *
 * @param dataDir         where the broker's log, the database and run logs live ({@code --data-dir},
 *                        {@code ./.changestream})
 * @param kafkaPort       broker port; its controller takes the next one ({@code --kafka-port}, 19092)
 * @param postgresPort    PostgreSQL port ({@code --postgres-port}, 15432)
 * @param cdcPort         cdc-connector HTTP port ({@code --cdc-port}, 8090)
 * @param logsPort        log-tailer HTTP port ({@code --logs-port}, 8590)
 * @param alertsPort      alert-consumer HTTP port ({@code --alerts-port}, 8591)
 * @param webhookPort     demo webhook sink port ({@code --webhook-port}, 8599)
 * @param token           bearer token of the admin and log APIs ({@code --token}, dev-token-changestream)
 * @param eventInterval   demo writer pause between change events ({@code --event-interval}, PT2S)
 * @param linesPerRun     log lines per demo pipeline run ({@code --lines-per-run}, 10)
 * @param startTimeout    bound on starting each component ({@code --start-timeout}, PT60S)
 * @param stopTimeout     bound on stopping the broker ({@code --stop-timeout}, PT30S)
 * @param smokeTimeout    bound on the smoke checks ({@code --smoke-timeout}, PT120S)
 */
public record DevSettings(Path dataDir, int kafkaPort, int postgresPort, int cdcPort, int logsPort, int alertsPort,
                          int webhookPort, String token, Duration eventInterval, int linesPerRun,
                          Duration startTimeout, Duration stopTimeout, Duration smokeTimeout) {

    /** Namespace of the dev stack's topics. */
    public static final String NAMESPACE = "cs.";

    public DevSettings {
        Objects.requireNonNull(dataDir, "--data-dir is required");
        port(kafkaPort, "--kafka-port");
        port(postgresPort, "--postgres-port");
        port(cdcPort, "--cdc-port");
        port(logsPort, "--logs-port");
        port(alertsPort, "--alerts-port");
        port(webhookPort, "--webhook-port");
        if (kafkaPort == 65_535) {
            throw new UsageException("--kafka-port must leave the next port for the controller");
        }
        if (token == null || token.length() < 16 || token.chars().anyMatch(Character::isWhitespace)) {
            throw new UsageException("--token must be one word of at least 16 characters (the admin API's minimum)");
        }
        positive(eventInterval, "--event-interval");
        if (eventInterval.toMillis() < 10) {
            throw new UsageException("--event-interval must be >= 10 ms, was " + eventInterval);
        }
        if (linesPerRun < 1 || linesPerRun > 100_000) {
            throw new UsageException("--lines-per-run must be in [1, 100000], was " + linesPerRun);
        }
        positive(startTimeout, "--start-timeout");
        positive(stopTimeout, "--stop-timeout");
        positive(smokeTimeout, "--smoke-timeout");
    }

    private static void port(int port, String option) {
        if (port < 1 || port > 65_535) {
            throw new UsageException(option + " must be in [1, 65535], was " + port);
        }
    }

    private static void positive(Duration d, String option) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new UsageException(option + " must be a positive ISO-8601 duration, was " + d);
        }
    }
}
