package io.changestream.ops.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.ops.cli.Launcher;
import io.changestream.ops.service.StopSignal;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code changestream dev --smoke} on a clean data directory, run in-process: a real child-process broker, a real
 * PostgreSQL, the services and the demo writer; the smoke checks must pass and everything must stop.
 */
class DevSmokeIT {

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A port whose successor is free as well (the broker's controller takes it). */
    private static int freePortPair() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = freePort();
            try (ServerSocket next = new ServerSocket(port + 1)) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no two consecutive free ports");
    }

    @Test
    void smokeRunPassesOnACleanDataDirectory(@TempDir Path dir) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Launcher launcher = new Launcher(Map.of(), Clock.systemUTC(), StopSignal::manual);
        int code = launcher.run(new PrintWriter(out), new PrintWriter(err), "dev", "--smoke",
                "--data-dir", dir.resolve("state").toString(),
                "--kafka-port", Integer.toString(freePortPair()),
                "--postgres-port", Integer.toString(freePort()),
                "--cdc-port", Integer.toString(freePort()),
                "--logs-port", Integer.toString(freePort()),
                "--alerts-port", Integer.toString(freePort()),
                "--webhook-port", Integer.toString(freePort()),
                "--event-interval", "PT0.3S", "--lines-per-run", "5", "--smoke-timeout", "PT90S");
        assertEquals(0, code, out + "\n" + err);
        assertTrue(out.toString().contains("smoke: OK"), out.toString());
        assertTrue(out.toString().contains("Bearer dev-token"), "prints the token and curl line: " + out);
        assertTrue(out.toString().contains("/ui/logs.html"), "prints the viewer URL: " + out);
    }
}
