package io.changestream.ops.cli;

import io.changestream.logs.LogTailerConfig;
import io.changestream.logs.LogTailerServer;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Command;

/** {@code changestream logs}: the log-tailer SSE service. */
@Command(name = "logs", mixinStandardHelpOptions = true,
        description = {"Run the log-tailer: live ingestion logs over Server-Sent Events.",
                "Settings: log-tailer/README.md; environment variables LOG_TAILER_<KEY> override the file."})
final class LogsCommand extends ServiceCommand<LogTailerConfig> {

    @Override
    LogTailerConfig load(Path file, Map<String, String> env) throws Exception {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        }
        return LogTailerConfig.from(props, env);
    }

    @Override
    AutoCloseable start(LogTailerConfig config) {
        return LogTailerServer.start(config);
    }

    @Override
    String started(AutoCloseable service) {
        int port = ((LogTailerServer) service).port();
        return "log-tailer started: http://localhost:" + port + "/ui/logs.html, /metrics, /health/ready";
    }
}
