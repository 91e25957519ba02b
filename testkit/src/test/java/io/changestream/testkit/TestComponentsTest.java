package io.changestream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.TestComponents.Component;
import io.changestream.testkit.TestComponents.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** How the harness picks the in-JVM components or Testcontainers, and how it refuses. */
class TestComponentsTest {

    private static final UnaryOperator<String> NONE = k -> null;

    private static UnaryOperator<String> of(Map<String, String> values) {
        return values::get;
    }

    @Test
    void defaultIsEmbeddedForEveryComponent() {
        for (Component c : Component.values()) {
            assertEquals(Kind.EMBEDDED, TestComponents.require(c, NONE, NONE, () -> false), c.name());
        }
        assertEquals("changestream.test.postgres", Component.POSTGRES.setting());
        assertEquals("CHANGESTREAM_TEST_MARIADB", Component.MARIADB.env());
    }

    @Test
    void eachComponentIsSelectedOnItsOwnAndThePropertyWinsOverTheEnvironment() {
        UnaryOperator<String> props = of(Map.of("changestream.test.kafka", " Testcontainers "));
        UnaryOperator<String> env = of(Map.of("CHANGESTREAM_TEST_KAFKA", "embedded",
                "CHANGESTREAM_TEST_POSTGRES", "testcontainers"));
        assertEquals(Kind.TESTCONTAINERS, TestComponents.selected(Component.KAFKA, props, env));
        assertEquals(Kind.TESTCONTAINERS, TestComponents.selected(Component.POSTGRES, props, env));
        assertEquals(Kind.EMBEDDED, TestComponents.selected(Component.MARIADB, props, env));
        assertEquals(Kind.TESTCONTAINERS, TestComponents.require(Component.KAFKA, props, env, () -> true),
                "with a Docker engine the request stands");
    }

    @Test
    void anUnknownValueNamesTheSettingItCameFrom() {
        HarnessException e = assertThrows(HarnessException.class, () -> TestComponents.require(Component.MARIADB,
                NONE, of(Map.of("CHANGESTREAM_TEST_MARIADB", "docker")), () -> true));
        assertTrue(e.getMessage().contains("CHANGESTREAM_TEST_MARIADB='docker'"), e.getMessage());
        assertTrue(e.getMessage().contains("embedded or testcontainers"), e.getMessage());
    }

    @Test
    void testcontainersWithoutADockerEngineFailsAtOnceAndSaysWhy() {
        UnaryOperator<String> props = of(Map.of("changestream.test.postgres", "testcontainers"));
        HarnessException e = assertThrows(HarnessException.class,
                () -> TestComponents.require(Component.POSTGRES, props, NONE, () -> false));
        assertTrue(e.getMessage().contains("no Docker engine is reachable"), e.getMessage());
        assertTrue(e.getMessage().contains("in-JVM postgres"), e.getMessage());
    }

    @Test
    void onThisMachineTheRealProbeFindsNoDockerEngineQuickly() {
        boolean engine = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
        if (engine) {
            assertTrue(Containers.dockerAvailable(), "an engine is configured here, so the probe must find it");
            return;
        }
        long start = System.nanoTime();
        assertEquals(false, Containers.dockerAvailable());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, "the probe took " + took);
        // and the whole path a test takes: Brokers.start with the setting fails, never falls back to the embedded
        System.setProperty(Component.KAFKA.setting(), "testcontainers");
        try {
            HarnessException e = assertThrows(HarnessException.class, () -> Brokers.start(Map.of()));
            assertTrue(e.getMessage().contains("no Docker engine"), e.getMessage());
        } finally {
            System.clearProperty(Component.KAFKA.setting());
        }
    }
}
