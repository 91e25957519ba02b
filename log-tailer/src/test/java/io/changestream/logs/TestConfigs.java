package io.changestream.logs;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/** Configs for tests: port 0, token "secret", storage under a temp dir, overrides as properties. */
final class TestConfigs {

    static final String TOKEN = "secret";

    private TestConfigs() {
    }

    static LogTailerConfig config(Path storage, Map<String, String> overrides) {
        Properties p = new Properties();
        p.setProperty("http.host", "127.0.0.1");
        p.setProperty("http.port", "0");
        p.setProperty("auth.tokens", TOKEN + ",other-token");
        p.setProperty("storage.root", storage.toString());
        p.setProperty("kafka.stateDir", storage.resolve("state").toString());
        p.setProperty("stream.pollSeconds", "0.05");
        p.putAll(overrides);
        return LogTailerConfig.from(p, Map.of());
    }
}
