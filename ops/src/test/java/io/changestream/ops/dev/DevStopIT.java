package io.changestream.ops.dev;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops/changestream dev} as a user runs it: the script on the packaged jar, then SIGTERM (what Ctrl-C's SIGINT
 * also does): the stack stops cleanly, exits 0 and leaves no broker behind.
 */
class DevStopIT {

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void sigtermStopsTheWholeStackAndExitsZero(@TempDir Path dir) throws Exception {
        int[] ports = FreePorts.withPairFirst(6); // the broker's controller takes kafkaPort + 1
        int kafkaPort = ports[0];
        Path root = Path.of("..").toAbsolutePath().normalize();
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("ops/changestream").toString(), "dev",
                "--data-dir", dir.resolve("state").toString(), "--kafka-port", Integer.toString(kafkaPort),
                "--postgres-port", Integer.toString(ports[1]), "--cdc-port", Integer.toString(ports[2]),
                "--logs-port", Integer.toString(ports[3]), "--alerts-port", Integer.toString(ports[4]),
                "--webhook-port", Integer.toString(ports[5]), "--event-interval", "PT0.5S")
                .redirectErrorStream(true);
        pb.environment().put("CHANGESTREAM_SKIP_BUILD", "1");
        Process process = pb.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "dev-stop-it-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(150)).until(() -> lines.contains("Press Ctrl-C to stop.")
                    || !process.isAlive());
            assertTrue(lines.contains("Press Ctrl-C to stop."), String.join("\n", lines));
            await().atMost(Duration.ofSeconds(60)).until(() -> lines.stream().anyMatch(l -> l.startsWith("webhook <- ")));
            assertTrue(listening(kafkaPort), "the broker runs");
            // ProcessHandle.destroy sends SIGTERM without closing our end of its stdout (Process.destroy would)
            process.toHandle().destroy();
            assertTrue(process.waitFor(90, TimeUnit.SECONDS), "stopped within 90 s: " + String.join("\n", lines));
            assertEquals(0, process.exitValue(), String.join("\n", lines));
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertTrue(lines.contains("dev: stopped"),
                    String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()))));
            assertFalse(listening(kafkaPort), "the broker child process stopped with the stack");
        } finally {
            process.destroyForcibly();
        }
    }
}
