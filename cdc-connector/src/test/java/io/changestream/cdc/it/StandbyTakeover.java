package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The standby scenario shared by the Postgres and MariaDB tests: instance A streams, B waits and is never ready while
 * A lives; A is SIGKILLed; B becomes ready within the bound and captures what is inserted next; B stops on SIGTERM
 * with exit 0. Returns the measured takeover time.
 */
final class StandbyTakeover {

    private StandbyTakeover() {
    }

    static Duration run(String label, KafkaBroker broker, String namespace, Map<String, String> settings,
                        Consumer<String> insertChangeEventJson, Duration takeoverBound) throws Exception {
        try (ConnectorProcess a = ConnectorProcess.start(label + "-a", settings)) {
            a.awaitReady(Duration.ofSeconds(90));
            return afterActiveIsReady(label, broker, namespace, settings, insertChangeEventJson, takeoverBound, a);
        }
    }

    private static Duration afterActiveIsReady(String label, KafkaBroker broker, String namespace,
                                               Map<String, String> settings, Consumer<String> insertChangeEventJson,
                                               Duration takeoverBound, ConnectorProcess a) throws Exception {
        try (ConnectorProcess b = ConnectorProcess.start(label + "-b", settings);
             TopicReader changes = new TopicReader(broker, namespace + "changes")) {
            await().atMost(Duration.ofSeconds(60)).until(b::live);
            // never two active readers: B stays not-ready while A lives
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> !b.ready() && a.ready());
            String before = UUID.randomUUID().toString();
            insertChangeEventJson.accept(Rows.changeEvent(before, "entityCreated", "table",
                    UUID.randomUUID().toString(), 1, ""));
            await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                    .anyMatch(v -> before.equals(v.path("id").asText())));

            long killedAt = System.nanoTime();
            a.kill();
            b.awaitReady(takeoverBound);
            Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
            String after = UUID.randomUUID().toString();
            insertChangeEventJson.accept(Rows.changeEvent(after, "entityCreated", "table",
                    UUID.randomUUID().toString(), 2, ""));
            await().atMost(Duration.ofSeconds(30)).until(() -> changes.values().stream()
                    .anyMatch(v -> after.equals(v.path("id").asText())));
            assertFalse(a.live());
            assertTrue(b.ready());
            String report = label + " standby takeover after SIGKILL: " + takeover.toMillis() + " ms";
            System.out.println(report);
            Files.writeString(Path.of("target", "standby-takeover.txt"), report + "\n", StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            assertEquals(0, b.terminate(Duration.ofSeconds(10)), "SIGTERM: exit 0 within 10 s");
            return takeover;
        }
    }
}
