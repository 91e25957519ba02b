package io.changestream.ops.cli;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcConnector;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code changestream cdc}: the cdc-connector against an existing database and Kafka cluster. */
@Command(name = "cdc", mixinStandardHelpOptions = true,
        description = {"Run the cdc-connector: Debezium reads change_event and pipeline status rows from the "
                + "database log into Kafka.",
                "Settings: cdc-connector/README.md; environment variables CS_CDC_<KEY> override the file."})
final class CdcCommand extends ServiceCommand<CdcConfig> {

    @Override
    CdcConfig load(Path file, Map<String, String> env) {
        return CdcConfig.load(file, env);
    }

    @Override
    AutoCloseable start(CdcConfig config) {
        return new CdcConnector(config).start();
    }

    @Override
    String started(AutoCloseable service) {
        int port = ((CdcConnector) service).httpPort();
        return "cdc-connector started: http://localhost:" + port + "/metrics, /health/ready";
    }
}
